import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import t, { type Test } from 'tap'
import { ConfigSchema } from '../../config.js'
import { freePort } from '../../bench/processes.js'
import { mysqlConnection } from '../../bench/mysql.js'
import { dropPostgresDatabase, onPostgresServer, postgresConnection } from '../../bench/postgres.js'
import { DIALECTS } from '../helpers/app.js'

// What a newcomer meets before the server runs: --help, and the start-up errors of the database,
// each provoked for real (a closed port, a server that never greets, the real MariaDB with a wrong
// database name or password, the real PostgreSQL with a wrong database name or user) and read as the
// operator reads them, from the process's output.

const SERVER = fileURLToPath(new URL('../../server.js', import.meta.url))
const MIGRATE = fileURLToPath(new URL('../../scripts/migrate/index.js', import.meta.url))
const MYSQL_URL = process.env.TEST_MYSQL_URL
const POSTGRES_URL = process.env.TEST_POSTGRES_URL
const KEY = 'k'.repeat(20)

function tempDir(t: Test) {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-startup-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** Runs a compiled entry point to its end (bounded), in its own working directory. */
function run(
  script: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${script} ${args.join(' ')} did not end within 60 s:\n${stdout}${stderr}`))
    }, 60_000)
    child.on('error', reject)
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

t.test('--help and -h print the usage and every setting, and start nothing', async (t) => {
  for (const flag of ['--help', '-h']) {
    const cwd = tempDir(t)
    const port = await freePort()
    // No API_KEY: a start would write .env and open ./data/outpost.db.
    const result = await run(SERVER, [flag], cwd, { PORT: String(port) })
    t.equal(result.code, 0, `${flag}: exit 0`)
    t.match(result.stdout, /^Usage: npm start/)
    for (const name of Object.keys(ConfigSchema.properties)) {
      t.match(result.stdout, new RegExp(`^  ${name} = `, 'm'), `${flag}: ${name} listed`)
    }
    t.equal(result.stderr, '', 'nothing on stderr')
    t.same(readdirSync(cwd), [], `${flag}: no .env, no data/ written`)
    await t.rejects(fetch(`http://127.0.0.1:${port}/health`), `${flag}: nothing listens on PORT`)
  }
  const cwd = tempDir(t)
  const unknown = await run(SERVER, ['--frobnicate'], cwd, {})
  t.equal(unknown.code, 2, 'an unknown argument: exit 2')
  t.match(unknown.stderr, /^Unknown argument "--frobnicate": npm start takes none but --help\.\n\nUsage: npm start/)
  t.same(readdirSync(cwd), [], 'nothing written')
})

t.test('--help prints at once: it loads neither the app nor a database driver', async (t) => {
  // A module hook refuses every module of the app and its heavy packages: --help must not need them.
  const dir = tempDir(t)
  const hooks = join(dir, 'hooks.mjs')
  writeFileSync(
    hooks,
    `export async function resolve(specifier, context, next) {
      const result = await next(specifier, context)
      if (/\\/dist\\/(app|db\\/index|cluster-primary)\\.js$|\\/node_modules\\/(fastify|better-sqlite3|mysql2|pino)\\//.test(result.url))
        throw new Error('--help loaded ' + result.url)
      return result
    }`,
  )
  const register = join(dir, 'register.mjs')
  writeFileSync(
    register,
    `import { register } from 'node:module'\nregister(${JSON.stringify(pathToFileURL(hooks).href)})\n`,
  )
  const result = await run(SERVER, ['--help'], dir, { NODE_OPTIONS: `--import=${pathToFileURL(register).href}` })
  t.equal(result.stderr, '', 'no module of the app was loaded')
  t.equal(result.code, 0, 'exit 0')
  t.match(result.stdout, /^Usage: npm start/, 'the usage is printed')
  // Timed without the hook (it runs a thread of its own), beside an empty Node, the best of three
  // each (a busy machine stretches single runs): the app loaded first took 2 to 7 s more.
  const timed = async (script: string, args: string[]) => {
    let best = Infinity
    for (let i = 0; i < 3; i++) {
      const started = performance.now()
      await run(script, args, dir, {})
      best = Math.min(best, (performance.now() - started) / 1000)
    }
    return best
  }
  const node = await timed('-e', [''])
  const help = await timed(SERVER, ['--help'])
  t.ok(help < node + 1.5, `--help in ${help.toFixed(2)} s, an empty Node in ${node.toFixed(2)} s`)
})

/** The database servers, each with its settings: the machine's test server's own from its URL when given. */
const SERVERS = (['mysql', 'postgres'] as const).filter((engine) => DIALECTS.includes(engine))
const TITLES = { mysql: 'MySQL', postgres: 'PostgreSQL' } as const

function serverEnv(engine: 'mysql' | 'postgres', settings: Record<string, string>): Record<string, string> {
  const user = engine === 'mysql' ? 'root' : 'postgres'
  return { API_KEY: KEY, PORT: '0', DB_DRIVER: engine, DB_USER: user, DB_PASS: '', ...settings }
}
const mysqlEnv = (settings: Record<string, string>) => serverEnv('mysql', settings)

/** A start that must fail: exit 1, the message on stderr, no "Migration" label, and the message's fix. */
async function assertRefused(t: Test, env: Record<string, string>, message: string, script = SERVER) {
  const result = await run(script, [], tempDir(t), env)
  t.equal(result.code, 1, 'non-zero exit')
  t.match(result.stderr, message, result.stderr.trim())
  t.notMatch(result.stderr, /Migration/, 'not reported as a failed migration')
  return result
}

for (const engine of SERVERS) {
  const title = TITLES[engine]
  t.test(`${title} on a closed port: cannot connect (connection refused)`, async (t) => {
    const port = await freePort()
    await assertRefused(
      t,
      serverEnv(engine, { DB_HOST: '127.0.0.1', DB_PORT: String(port) }),
      `Outpost failed to start: cannot connect to ${title} at 127.0.0.1:${port} (connection refused): ` +
        `start the ${title} server, or set DB_HOST and DB_PORT in .env to where it listens`,
    )
  })

  t.test(`${title} that accepts but never answers: cannot connect (no answer within the bound)`, async (t) => {
    const sockets = new Set<Socket>()
    const silent = createServer((socket) => {
      sockets.add(socket)
      socket.on('error', () => {})
    })
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    t.teardown(() => {
      for (const socket of sockets) socket.destroy()
      silent.close()
    })
    const port = (silent.address() as { port: number }).port
    const started = Date.now()
    await assertRefused(
      t,
      serverEnv(engine, { DB_HOST: '127.0.0.1', DB_PORT: String(port), DB_QUERY_TIMEOUT_MS: '500' }),
      `cannot connect to ${title} at 127.0.0.1:${port} (no answer within 10000 ms): check DB_HOST and DB_PORT`,
    )
    t.ok(Date.now() - started < 40_000, 'the start gives up within the check’s bound, not the migrations’ hours')
    t.ok(sockets.size >= 1, 'it did reach the port')
  })
}

t.test('a port already in use: says which and what to set', async (t) => {
  const holder = createServer()
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve))
  t.teardown(() => holder.close())
  const port = (holder.address() as { port: number }).port
  const result = await run(SERVER, [], tempDir(t), { API_KEY: KEY, PORT: String(port) })
  t.equal(result.code, 1)
  t.match(
    result.stderr,
    `Outpost failed to start: port ${port} is already in use (127.0.0.1:${port}): stop the program that holds it ` +
      '(another Outpost?), or set PORT in .env to a free port',
  )
})

t.test('SQLite whose folder cannot be made: says which path and what to set', async (t) => {
  const cwd = tempDir(t)
  writeFileSync(join(cwd, 'afile'), 'not a folder')
  const result = await run(SERVER, [], cwd, { API_KEY: KEY, PORT: '0', DB_PATH: './afile/outpost.db' })
  t.equal(result.code, 1)
  t.match(result.stderr, /cannot create the folder of the SQLite database \.\/afile\/outpost\.db \(.+\): set DB_PATH/)
})

t.test('a file that is not a SQLite database: says so and what to do', async (t) => {
  const cwd = tempDir(t)
  writeFileSync(join(cwd, 'notes.db'), 'these are notes, not a database '.repeat(200))
  const result = await run(SERVER, [], cwd, { API_KEY: KEY, PORT: '0', DB_PATH: './notes.db' })
  t.equal(result.code, 1)
  t.match(result.stderr, /\.\/notes\.db is not a usable SQLite database \(.+\): set DB_PATH in \.env/)
})

t.test(
  'the real MariaDB: an unknown database, a wrong password',
  {
    skip:
      (!MYSQL_URL && 'TEST_MYSQL_URL is not set') || (!SERVERS.includes('mysql') && 'TEST_ENGINES leaves mysql out'),
  },
  async (t) => {
    const server = mysqlConnection(MYSQL_URL!)
    const at = `${server.host}:${server.port}`
    const base = { DB_HOST: server.host, DB_PORT: String(server.port), DB_USER: server.user, DB_PASS: server.password }
    const missing = `outpost_missing_${randomBytes(4).toString('hex')}`
    const create = `CREATE DATABASE ${missing} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`

    t.test('an unknown database, on one process, under WORKERS=2 and from npm run migrate', async (t) => {
      const expected = `database "${missing}" does not exist on MySQL at ${at}: ${create} (or set DB_NAME`
      await assertRefused(t, mysqlEnv({ ...base, DB_NAME: missing }), `Outpost failed to start: ${expected}`)
      await assertRefused(
        t,
        mysqlEnv({ ...base, DB_NAME: missing, WORKERS: '2' }),
        `Outpost failed to start: ${expected}`,
      )
      await assertRefused(t, mysqlEnv({ ...base, DB_NAME: missing }), expected, MIGRATE)
    })

    t.test('a wrong password: access denied, where the value came from, no CREATE USER', async (t) => {
      const wrong = `wrong-${randomBytes(6).toString('hex')}`
      const denied =
        `Outpost failed to start: access denied for user "${server.user}" on MySQL at ${at} (with a password): ` +
        "the password is wrong, or the account may not connect from '"
      // From the environment: the .env file beside it is not where to look.
      const fromEnv = await assertRefused(t, mysqlEnv({ ...base, DB_NAME: 'outpost', DB_PASS: wrong }), denied)
      t.match(
        fromEnv.stderr,
        'check DB_PASS (set in the environment, which overrides .env) and DB_USER (set in the environment, which overrides .env)',
      )
      // From the .env file.
      const cwd = tempDir(t)
      const settings = { ...mysqlEnv({ ...base, DB_NAME: 'outpost', DB_PASS: wrong }), API_KEY: KEY }
      writeFileSync(
        join(cwd, '.env'),
        Object.entries(settings)
          .map(([name, value]) => `${name}=${value}\n`)
          .join(''),
      )
      const fromFile = await run(SERVER, [], cwd, {})
      t.equal(fromFile.code, 1, 'non-zero exit')
      t.match(fromFile.stderr, denied)
      t.match(fromFile.stderr, 'check DB_PASS (set in .env) and DB_USER (set in .env)', fromFile.stderr.trim())
      for (const result of [fromEnv, fromFile]) {
        t.notMatch(result.stderr, /CREATE USER/, 'no CREATE USER for an account that may well exist')
        t.notMatch(result.stderr, wrong, 'the password is not printed')
      }
    })
  },
)

t.test(
  'the real PostgreSQL: an unknown database (its statement runs as printed), an unknown user',
  {
    skip:
      (!POSTGRES_URL && 'TEST_POSTGRES_URL is not set') ||
      (!SERVERS.includes('postgres') && 'TEST_ENGINES leaves postgres out'),
  },
  async (t) => {
    const server = postgresConnection(POSTGRES_URL!)
    const at = `${server.host}:${server.port}`
    const base = { DB_HOST: server.host, DB_PORT: String(server.port), DB_USER: server.user, DB_PASS: server.password }
    const postgresEnv = (settings: Record<string, string>) => serverEnv('postgres', { ...base, ...settings })

    t.test('an unknown database, on one process, under WORKERS=2 and from npm run migrate', async (t) => {
      const missing = `outpost_missing_${randomBytes(4).toString('hex')}`
      const expected =
        `database "${missing}" does not exist on PostgreSQL at ${at}: as a superuser, CREATE DATABASE ${missing} ` +
        `ENCODING 'UTF8' TEMPLATE template0 OWNER ${server.user}; (its owner may create Outpost's tables`
      const first = await assertRefused(t, postgresEnv({ DB_NAME: missing }), `Outpost failed to start: ${expected}`)
      await assertRefused(t, postgresEnv({ DB_NAME: missing, WORKERS: '2' }), `Outpost failed to start: ${expected}`)
      await assertRefused(t, postgresEnv({ DB_NAME: missing }), expected, MIGRATE)
      // The statement as printed makes the database the migrations then fill.
      const statement = /CREATE DATABASE [^;]+;/.exec(first.stderr)![0]
      await onPostgresServer(POSTGRES_URL!, statement)
      t.teardown(() => dropPostgresDatabase(POSTGRES_URL!, missing))
      const migrated = await run(MIGRATE, [], tempDir(t), postgresEnv({ DB_NAME: missing }))
      t.equal(migrated.code, 0, migrated.stderr.trim())
      t.match(migrated.stdout, /^Applied: 0001_/, 'the migrations ran into the new database')
    })

    t.test('an unknown user: says so, where DB_USER came from, and the CREATE ROLE', async (t) => {
      const nobody = `outpost_nobody_${randomBytes(4).toString('hex')}`
      const refused =
        `Outpost failed to start: user "${nobody}" does not exist on PostgreSQL at ${at}: check DB_USER ` +
        `(set in the environment, which overrides .env), or create it as a superuser: CREATE ROLE ${nobody} LOGIN`
      await assertRefused(t, postgresEnv({ DB_NAME: 'postgres', DB_USER: nobody }), refused)
      const cwd = tempDir(t)
      const settings = postgresEnv({ DB_NAME: 'postgres', DB_USER: nobody })
      writeFileSync(
        join(cwd, '.env'),
        Object.entries(settings)
          .map(([name, value]) => `${name}=${value}\n`)
          .join(''),
      )
      const fromFile = await run(SERVER, [], cwd, {})
      t.equal(fromFile.code, 1, 'non-zero exit')
      t.match(fromFile.stderr, `does not exist on PostgreSQL at ${at}: check DB_USER (set in .env), or create it`)
    })
  },
)

t.test('a run that fails before its first migration does not read as a failed migration', async (t) => {
  const { migrateToLatest } = await import('../../db/migrate.js')
  // Kysely's migrator reaches for its own tables first: a database that fails there fails before any migration.
  await t.rejects(migrateToLatest({} as never, {}), /^The migrations could not start: /)
})
