// The real horizOn Simple Server (PHP) for the end-to-end import test: a copy of its source with its
// own .env, served by `php -S` on 127.0.0.1, on SQLite or on a MySQL database of its own.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Test } from 'tap'
import SQLite from 'better-sqlite3'
import { createConnection } from 'mysql2/promise'
import { freePort } from '../../bench/processes.js'

/** The repository (this file runs from dist/test/helpers). */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')
const PHP_SERVER = process.env.PHP_SERVER_DIR ?? resolve(ROOT, '../shared/peers/horizon-simple-server')
const PHP_KEY = 'php-server-test-key-0123'
const MYSQL_URL = process.env.TEST_MYSQL_URL

/** Why this machine's php cannot serve the PHP server (a missing binary or module), if it cannot. */
export function phpMissing(): string | undefined {
  const probe = spawnSync('php', ['-m'], { encoding: 'utf8' })
  if (probe.error || probe.status !== 0) return 'php is not installed (apt-get install php-cli php-sqlite3 php-mysql)'
  const modules = probe.stdout.toLowerCase()
  for (const module of ['pdo_sqlite', 'pdo_mysql']) {
    if (!modules.includes(module)) return `php has no ${module} module (apt-get install php-sqlite3 php-mysql)`
  }
  return undefined
}

/** The PHP server's own source: outside this repository, so its absence is no failure and no skip. */
export const sourceMissing = existsSync(join(PHP_SERVER, 'index.php'))
  ? undefined
  : `the PHP server's source is not at ${PHP_SERVER} (set PHP_SERVER_DIR to run it)`

/** The PHP server's own integration tests: a bash script of curl calls against its `/api/v1/app`. */
export const PHP_SERVER_TESTS = join(PHP_SERVER, 'tests', 'test.sh')

export interface PhpServer {
  dir: string
  /** The SQLite file, or the mysql:// URL of its database. */
  from: string
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>
  /** SQL against the PHP server's database, for what its API cannot create (it has no admin API). */
  exec(statements: string[]): Promise<void>
}

/** A copy of the PHP server with its own .env, served by `php -S` on 127.0.0.1; stopped when the test ends. */
export async function startPhpServer(t: Test, driver: 'sqlite' | 'mysql'): Promise<PhpServer> {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-php-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  for (const part of ['index.php', 'src', 'migrations'])
    cpSync(join(PHP_SERVER, part), join(dir, part), { recursive: true })
  const env = [`API_KEY=${PHP_KEY}`, 'RATE_LIMIT_ENABLED=false', `DB_DRIVER=${driver}`]
  let from: string
  let exec: PhpServer['exec']
  if (driver === 'sqlite') {
    from = join(dir, 'data', 'horizon.db')
    env.push(`DB_PATH=${from}`)
    exec = async (statements) => {
      const db = new SQLite(from)
      try {
        for (const statement of statements) db.exec(statement)
      } finally {
        db.close()
      }
    }
  } else {
    const url = new URL(MYSQL_URL!)
    const name = `php_t_${randomBytes(6).toString('hex')}`
    const connect = (database?: string) =>
      createConnection({
        host: url.hostname,
        port: Number(url.port || 3306),
        user: decodeURIComponent(url.username),
        password: decodeURIComponent(url.password),
        database,
      })
    const admin = await connect()
    await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`)
    await admin.end()
    t.teardown(async () => {
      const conn = await connect()
      await conn.query(`DROP DATABASE IF EXISTS \`${name}\``)
      await conn.end()
    })
    env.push(
      `DB_HOST=${url.hostname}`,
      `DB_PORT=${url.port || 3306}`,
      `DB_NAME=${name}`,
      `DB_USER=${decodeURIComponent(url.username)}`,
      `DB_PASS=${decodeURIComponent(url.password)}`,
    )
    const auth = url.password ? `${url.username}:${url.password}` : url.username
    from = `mysql://${auth}@${url.host}/${name}`
    exec = async (statements) => {
      const conn = await connect(name)
      try {
        for (const statement of statements) await conn.query(statement)
      } finally {
        await conn.end()
      }
    }
  }
  writeFileSync(join(dir, '.env'), `${env.join('\n')}\n`)

  const port = await freePort()
  const child: ChildProcess = spawn('php', ['-S', `127.0.0.1:${port}`, 'index.php'], { cwd: dir, stdio: 'ignore' })
  t.teardown(() => {
    child.kill()
  })
  const base = `http://127.0.0.1:${port}/api/v1/app`
  const call: PhpServer['call'] = async (method, path, body) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { 'x-api-key': PHP_KEY, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    })
    const text = await response.text()
    return { status: response.status, body: text ? JSON.parse(text) : null }
  }
  const deadline = Date.now() + 15_000
  for (;;) {
    try {
      // The first request also creates the PHP server's schema (its migration runs on every request).
      if ((await call('GET', '/health')).status === 200) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('the PHP server did not answer within 15 s')
    await new Promise((r) => setTimeout(r, 100))
  }
  return { dir, from, call, exec }
}
