import { spawn, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import SQLite from 'better-sqlite3'
import { createConnection } from 'mysql2/promise'
import { pinnedCommand } from './pinning.js'
import { track, waitForExit, waitForHttp, watchTree, type Server } from './processes.js'

/**
 * The PHP server Outpost replaces (horizOn Simple Server), run as it is deployed: nginx in front of
 * php-fpm with a static pool of 8 workers, on SQLite (its default driver) or MariaDB. Everything lives in a temp
 * dir: a copy of its source, its `.env`, its database, and the nginx and php-fpm configurations,
 * pid files and logs. Both run in the foreground as children of the bench, so they stop with it.
 */

export const PHP_WORKERS = 8
const PACKAGES = ['nginx', 'php-fpm', 'php-sqlite3', 'php-mbstring']

function which(names: string[]): string | null {
  for (const name of names) {
    for (const dir of ['/usr/sbin', '/usr/local/sbin', '/usr/bin', '/usr/local/bin']) {
      if (existsSync(join(dir, name))) return join(dir, name)
    }
  }
  return null
}

/** php-fpm is installed versioned (`php-fpm8.2`); the newest one found wins. */
function findPhpFpm(): string | null {
  const plain = which(['php-fpm'])
  if (plain) return plain
  const versioned = readdirSync('/usr/sbin')
    .filter((f) => /^php-fpm\d+\.\d+$/.test(f))
    .sort()
  return versioned.length ? join('/usr/sbin', versioned.at(-1)!) : null
}

/** Installs the Debian packages when they are missing and we may (root with apt-get), else says how. */
function ensureInstalled(): { nginx: string; phpFpm: string } {
  let nginx = which(['nginx'])
  let phpFpm = findPhpFpm()
  if (nginx && phpFpm) return { nginx, phpFpm }
  const command = `apt-get update && apt-get install -y ${PACKAGES.join(' ')}`
  if (process.getuid?.() !== 0 || !which(['apt-get']))
    throw new Error(`the PHP peer needs nginx and php-fpm: run \`${command}\` as root`)
  process.stdout.write(`installing ${PACKAGES.join(', ')}…\n`)
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  for (const args of [['update'], ['install', '-y', ...PACKAGES]]) {
    const run = spawnSync('apt-get', args, { stdio: 'inherit', env })
    if (run.status !== 0) throw new Error(`apt-get ${args[0]} failed: run \`${command}\` by hand`)
  }
  nginx = which(['nginx'])
  phpFpm = findPhpFpm()
  if (!nginx || !phpFpm) throw new Error(`nginx or php-fpm still missing after \`${command}\``)
  return { nginx, phpFpm }
}

/**
 * Its leaderboard binds LIMIT and OFFSET as execute() arguments, which PDO's emulated prepares (the
 * default) quote as strings: MariaDB refuses `LIMIT '10'`, so top and around answer 500 on MySQL. The
 * copy binds them as integers, as PDO needs there; the statements sent and their cost are otherwise
 * the same. A source where the lines are gone fails here rather than measuring errors.
 */
const MYSQL_PATCHES: Array<[file: string, from: string, to: string]> = [
  [
    'src/Leaderboard/LeaderboardController.php',
    '$stmt->execute([$limit]);',
    '$stmt->bindValue(1, $limit, PDO::PARAM_INT); $stmt->execute();',
  ],
  [
    'src/Leaderboard/LeaderboardController.php',
    '$stmt->execute([$limit, $offset]);',
    '$stmt->bindValue(1, $limit, PDO::PARAM_INT); $stmt->bindValue(2, $offset, PDO::PARAM_INT); $stmt->execute();',
  ],
]

function patchForMysql(app: string) {
  for (const [file, from, to] of MYSQL_PATCHES) {
    const path = join(app, file)
    const text = readFileSync(path, 'utf8')
    if (!text.includes(from)) throw new Error(`the PHP peer's ${file} no longer has \`${from}\`: see MYSQL_PATCHES`)
    writeFileSync(path, text.replace(from, to))
  }
}

export interface PhpPeer extends Server {
  /** Its SQLite database, for what its API cannot do (it has no admin API for remote config). */
  dbPath: string
}

export async function startPhpPeer(options: {
  sourceDir: string
  dir: string
  port: number
  apiKey: string
  /** The core nginx, php-fpm and all their workers run on (started under taskset: workers inherit it). */
  core: number | null
  /** Its MySQL settings (DB_HOST, DB_PORT, DB_NAME, DB_USER, DB_PASS) to run on MariaDB; its SQLite without. */
  mysql?: Record<string, string>
}): Promise<PhpPeer> {
  const { nginx, phpFpm } = ensureInstalled()
  const { dir, port } = options
  const app = join(dir, 'app')
  const dbPath = join(dir, 'data', 'horizon.db')
  // A copy: the server writes its `.env` and database beside its code, and the source is read-only.
  cpSync(options.sourceDir, app, {
    recursive: true,
    filter: (src) => !/[/\\](\.git|data|tests|docs)$/.test(src) && !src.endsWith('/.env'),
  })
  if (options.mysql) patchForMysql(app)
  mkdirSync(join(dir, 'data'))
  writeFileSync(
    join(app, '.env'),
    [
      `API_KEY=${options.apiKey}`,
      ...(options.mysql
        ? [
            'DB_DRIVER=mysql',
            ...['DB_HOST', 'DB_PORT', 'DB_NAME', 'DB_USER', 'DB_PASS'].map((k) => `${k}=${options.mysql![k] ?? ''}`),
          ]
        : ['DB_DRIVER=sqlite', `DB_PATH=${dbPath}`]),
      // Outpost runs with its rate limit off too; the PHP one would cost a write per request.
      'RATE_LIMIT_ENABLED=false',
      '',
    ].join('\n'),
  )

  const root = process.getuid?.() === 0
  const socket = join(dir, 'php-fpm.sock')
  writeFileSync(
    join(dir, 'php-fpm.conf'),
    [
      '[global]',
      `pid = ${join(dir, 'php-fpm.pid')}`,
      `error_log = ${join(dir, 'php-fpm.log')}`,
      'daemonize = no',
      '',
      '[bench]',
      // As root php-fpm wants a pool user; the temp dir is readable by its owner only.
      ...(root ? ['user = root', 'group = root'] : []),
      `listen = ${socket}`,
      'listen.mode = 0600',
      'pm = static',
      `pm.max_children = ${PHP_WORKERS}`,
      'catch_workers_output = yes',
      '',
    ].join('\n'),
  )
  for (const temp of ['body', 'fastcgi', 'proxy', 'uwsgi', 'scgi'])
    mkdirSync(join(dir, 'nginx', temp), { recursive: true })
  writeFileSync(
    join(dir, 'nginx.conf'),
    `${root ? 'user root;\n' : ''}daemon off;
worker_processes auto;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'nginx-error.log')} warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${join(dir, 'nginx/body')};
  fastcgi_temp_path ${join(dir, 'nginx/fastcgi')};
  proxy_temp_path ${join(dir, 'nginx/proxy')};
  uwsgi_temp_path ${join(dir, 'nginx/uwsgi')};
  scgi_temp_path ${join(dir, 'nginx/scgi')};
  client_max_body_size 1m;
  keepalive_requests 100000;
  server {
    listen 127.0.0.1:${port};
    root ${app};
    # Its single entry point answers every path (what its nginx.conf.example does through try_files).
    location / {
      include /etc/nginx/fastcgi_params;
      fastcgi_param SCRIPT_FILENAME ${join(app, 'index.php')};
      fastcgi_pass unix:${socket};
    }
  }
}
`,
  )

  const log = openSync(join(dir, 'peer.log'), 'a')
  const start = (program: string, args: string[]) =>
    track(spawn(...pinnedCommand(options.core, program, args), { stdio: ['ignore', log, log] }))
  const fpm = start(phpFpm, [
    '--nodaemonize',
    '--fpm-config',
    join(dir, 'php-fpm.conf'),
    ...(root ? ['--allow-to-run-as-root'] : []),
  ])
  const web = start(nginx, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'nginx-error.log')])
  const stop = async () => {
    tree.stop()
    // SIGQUIT: both finish the requests in hand, then exit with their workers.
    await Promise.all([waitForExit(web, 'SIGQUIT'), waitForExit(fpm, 'SIGQUIT')])
  }
  const tree = watchTree(() => [fpm.pid!, web.pid!])
  const url = `http://127.0.0.1:${port}`
  try {
    await waitForHttp(
      `${url}/api/v1/app/health`,
      () => fpm.exitCode === null && web.exitCode === null,
      'nginx + php-fpm',
      {
        ok: true,
      },
    )
  } catch (error) {
    await stop()
    throw new Error(`${(error as Error).message} (logs in ${dir}: peer.log, php-fpm.log, nginx-error.log)`)
  }
  return {
    children: [fpm, web],
    url,
    dbPath,
    cpuMs: tree.cpuMs,
    peakRss: tree.peakRss,
    peakProcesses: tree.peakProcesses,
    resetPeak: tree.resetPeak,
    stop,
  }
}

/** Its remote config has no write route: the keys go straight into its table. */
export async function seedPhpRemoteConfig(
  dbPath: string,
  entries: Array<[string, string]>,
  mysql?: Record<string, string>,
) {
  if (mysql) {
    const conn = await createConnection({
      host: mysql.DB_HOST,
      port: Number(mysql.DB_PORT),
      user: mysql.DB_USER,
      password: mysql.DB_PASS,
      database: mysql.DB_NAME,
    })
    try {
      for (const [key, value] of entries)
        await conn.query('replace into remote_configs (config_key, config_value) values (?, ?)', [key, value])
    } finally {
      await conn.end()
    }
    return
  }
  const db = new SQLite(dbPath)
  db.pragma('busy_timeout = 5000')
  const insert = db.prepare('insert or replace into remote_configs (config_key, config_value) values (?, ?)')
  for (const [key, value] of entries) insert.run(key, value)
  db.close()
}
