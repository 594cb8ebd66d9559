// TLS to the database servers (DB_SSL, DB_SSL_CA), against a MariaDB and a PostgreSQL of the test's
// own that refuse plain connections (test/helpers/tls-servers.ts): through Outpost's own createDb and a
// query, and through the start-up check, whose messages say what to set.
import t, { type Test } from 'tap'
import { sql } from 'kysely'
import { createDb, type DbConfig } from '../../db/index.js'
import { migrateToLatest } from '../../db/migrate.js'
import { MIGRATIONS } from '../../app.js'
import { checkDatabase, explainDbError } from '../../db/startup-check.js'
import { buildTestApp, DIALECTS, serverUrl, testConfig } from '../helpers/app.js'
import {
  makeCertificates,
  missingPrograms,
  PASSWORD,
  PASSWORD_USER,
  startTlsMariadb,
  startTlsPostgres,
  type Certificates,
  type TlsServer,
} from '../helpers/tls-servers.js'
import { mysqlConnection } from '../../bench/mysql.js'
import { postgresConnection } from '../../bench/postgres.js'

type ServerEngine = 'mysql' | 'postgres'
const TITLES: Record<ServerEngine, string> = { mysql: 'MySQL', postgres: 'PostgreSQL' }
const ENGINES = (['mysql', 'postgres'] as const).filter((engine) => DIALECTS.includes(engine))
const missing = missingPrograms()

/** Whether the session of `db` is encrypted, as the server itself reports it. */
async function encrypted(db: ReturnType<typeof createDb>, engine: ServerEngine): Promise<string> {
  if (engine === 'postgres') {
    const { rows } = await sql<{
      ssl: boolean
      version: string
    }>`select ssl, version from pg_stat_ssl where pid = pg_backend_pid()`.execute(db)
    return rows[0]?.ssl ? rows[0].version : ''
  }
  const { rows } = await sql<{ Value: string }>`show session status like 'Ssl_cipher'`.execute(db)
  return rows[0]?.Value ?? ''
}

/** The settings that point Outpost at `server`, with `settings` on top. */
function configFor(engine: ServerEngine, server: TlsServer, settings: Record<string, string>): DbConfig {
  return testConfig({
    DB_DRIVER: engine,
    DB_HOST: '127.0.0.1',
    DB_PORT: String(server.port),
    DB_USER: server.user,
    DB_NAME: server.database,
    DB_POOL_SIZE: '2',
    ...settings,
  })
}

/** A database opened with `config`, destroyed when the test ends. */
function open(t: Test, config: DbConfig) {
  const db = createDb(config)
  t.teardown(() => db.destroy())
  return db
}

/** What the start-up check throws for `config` (fails the test when it passes). */
async function checkFails(t: Test, config: DbConfig): Promise<string> {
  try {
    await checkDatabase(config)
  } catch (error) {
    return (error as Error).message
  }
  t.fail('the start-up check passed')
  return ''
}

async function tlsCases(t: Test, engine: ServerEngine, server: TlsServer, certs: Certificates) {
  const at = `${TITLES[engine]} at 127.0.0.1:${server.port}`

  t.test('require: connects, and the session is encrypted', async (t) => {
    const config = configFor(engine, server, { DB_SSL: 'require' })
    t.match(await encrypted(open(t, config), engine), /^(TLS|TLSv1\.[23])/, 'the server reports TLS')
    await t.resolves(checkDatabase(config), 'the start-up check passes')
  })

  t.test('verify with the authority that signed the certificate: connects, encrypted', async (t) => {
    const config = configFor(engine, server, { DB_SSL: 'verify', DB_SSL_CA: certs.ca })
    t.match(await encrypted(open(t, config), engine), /^(TLS|TLSv1\.[23])/, 'the server reports TLS')
    await t.resolves(checkDatabase(config), 'the start-up check passes')
  })

  t.test('verify with an unrelated authority: refused, the message names DB_SSL_CA and DB_SSL', async (t) => {
    const config = configFor(engine, server, { DB_SSL: 'verify', DB_SSL_CA: certs.otherCa })
    await t.rejects(sql`select 1`.execute(open(t, config)), 'no query runs')
    const message = await checkFails(t, config)
    t.match(message, `the certificate of ${at} is not signed by the authority in DB_SSL_CA, ${certs.otherCa} (`)
    t.match(message, 'DB_SSL_CA (set in the environment, which overrides .env) must name the PEM file of the authority')
    t.match(message, 'or set DB_SSL=require to encrypt without checking the certificate')
  })

  t.test("verify with the system's authorities: refused (a test authority is in no store)", async (t) => {
    const config = configFor(engine, server, { DB_SSL: 'verify' })
    await t.rejects(sql`select 1`.execute(open(t, config)), 'no query runs')
    const message = await checkFails(t, config)
    t.match(message, `the certificate of ${at} is not signed by an authority of this machine's store (`)
    t.match(message, 'DB_SSL=verify with DB_SSL_CA empty requires: set DB_SSL_CA in .env to the PEM file')
  })

  t.test('off: refused, and the start-up check says to turn DB_SSL on', async (t) => {
    const config = configFor(engine, server, { DB_SSL: 'off' })
    await t.rejects(sql`select 1`.execute(open(t, config)), 'no query runs')
    t.equal(
      await checkFails(t, config),
      `${at} accepts this connection only over TLS, and DB_SSL is off: set DB_SSL=require in .env (encrypted), ` +
        "or DB_SSL=verify (encrypted, and the server's certificate checked against DB_SSL_CA or this machine's authorities)",
    )
  })

  t.test('verify with a DB_SSL_CA that cannot be read: the path, and what the file must be', async (t) => {
    const config = configFor(engine, server, { DB_SSL: 'verify', DB_SSL_CA: `${certs.ca}.missing` })
    const message = await checkFails(t, config)
    t.match(message, `DB_SSL_CA names ${certs.ca}.missing, which cannot be read (ENOENT): set it to the PEM file`)
  })

  t.test('the whole app runs over verified TLS: migrations, a sign-up, a score', async (t) => {
    const dbEnv = { DB_DRIVER: engine, DB_HOST: '127.0.0.1', DB_PORT: String(server.port), DB_USER: server.user }
    const database = `outpost_app_${engine}`
    await server.admin(
      engine === 'mysql'
        ? `CREATE DATABASE ${database} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`
        : `CREATE DATABASE ${database} ENCODING 'UTF8' TEMPLATE template0`,
    )
    const ctx = await buildTestApp(t, engine, {
      dbEnv: { ...dbEnv, DB_NAME: database, DB_SSL: 'verify', DB_SSL_CA: certs.ca },
    })
    const signup = await ctx.call({ method: 'POST', url: '/user-management/signup', payload: { type: 'ANONYMOUS' } })
    t.equal(signup.statusCode, 201)
    const score = await ctx.call({
      method: 'POST',
      url: '/leaderboard/submit',
      payload: { userId: signup.json().userId, score: 42 },
    })
    t.equal(score.statusCode, 200)
    t.equal((await ctx.app.inject({ method: 'GET', url: '/health/ready' })).statusCode, 200)
  })
}

/** PostgreSQL's own refusals, over TLS: a wrong password, a schema the user may not create in. */
async function postgresAccounts(t: Test, server: TlsServer) {
  const at = `PostgreSQL at 127.0.0.1:${server.port}`
  const over = { DB_SSL: 'require' }

  t.test('a wrong password: 28P01, naming DB_PASS, DB_USER and pg_hba.conf', async (t) => {
    const right = configFor('postgres', server, { ...over, DB_USER: PASSWORD_USER, DB_PASS: PASSWORD })
    await t.resolves(checkDatabase(right), 'the right password passes')
    const message = await checkFails(t, { ...right, DB_PASS: 'wrong-password' })
    t.match(
      message,
      `access denied for user "${PASSWORD_USER}" on ${at} (password authentication failed): check DB_PASS`,
    )
    t.match(
      message,
      "DB_USER (set in the environment, which overrides .env); how each user signs in is set in the server's pg_hba.conf",
    )
    t.notMatch(message, /wrong-password/, 'the password is not printed')
    const empty = await checkFails(t, { ...right, DB_PASS: '' })
    t.match(empty, `${at} asks for the password of user "${PASSWORD_USER}", and DB_PASS is empty: set DB_PASS`)
  })

  t.test('a database of another owner: the migrations say which GRANT lets them create tables', async (t) => {
    await server.admin('CREATE ROLE outpost_guest LOGIN')
    await server.admin(`CREATE DATABASE outpost_foreign ENCODING 'UTF8' TEMPLATE template0`)
    const config = configFor('postgres', server, { ...over, DB_USER: 'outpost_guest', DB_NAME: 'outpost_foreign' })
    await t.resolves(checkDatabase(config), 'the account may connect')
    const db = open(t, config)
    const failed = await migrateToLatest(db, MIGRATIONS).then(
      () => null,
      (error: unknown) => explainDbError(error, config) as Error,
    )
    t.equal(
      failed?.message,
      `user "outpost_guest" may not create tables in schema public of database "outpost_foreign" on ${at} ` +
        "(PostgreSQL 15+ lets only the database's owner create there): as a superuser, connected to " +
        'outpost_foreign, GRANT ALL ON SCHEMA public TO outpost_guest; (or ALTER DATABASE outpost_foreign OWNER TO outpost_guest;)',
    )
    // The statement it prints is the fix.
    await server.admin('ALTER DATABASE outpost_foreign OWNER TO outpost_guest')
    await t.resolves(migrateToLatest(db, MIGRATIONS), 'the migrations run once the user owns the database')
  })
}

t.test(
  'TLS to database servers that demand it',
  {
    skip:
      (missing.length > 0 && `this machine lacks ${missing.join(', ')}`) ||
      (ENGINES.length === 0 && 'TEST_ENGINES leaves out mysql and postgres'),
  },
  async (t) => {
    const certs = makeCertificates(t)
    for (const engine of ENGINES) {
      t.test(TITLES[engine], async (t) => {
        const server = engine === 'mysql' ? await startTlsMariadb(t, certs) : await startTlsPostgres(t, certs)
        await tlsCases(t, engine, server, certs)
        if (engine === 'postgres') await postgresAccounts(t, server)
      })
    }
  },
)

t.test('require against a server that offers no TLS: says so, and how to turn it on', async (t) => {
  for (const engine of ENGINES) {
    const url = serverUrl(engine)
    if (!url) {
      t.test(
        engine,
        { skip: `${engine === 'mysql' ? 'TEST_MYSQL_URL' : 'TEST_POSTGRES_URL'} is not set` },
        async () => {},
      )
      continue
    }
    const conn = engine === 'mysql' ? mysqlConnection(url) : postgresConnection(url)
    const at = `${TITLES[engine]} at ${conn.host}:${conn.port}`
    const config = testConfig({
      DB_DRIVER: engine,
      DB_HOST: conn.host,
      DB_PORT: String(conn.port),
      DB_USER: conn.user,
      DB_PASS: conn.password,
      DB_SSL: 'require',
    })
    // The test servers of this machine run without TLS: a test that finds one with it says so.
    const message = await checkFails(t, config)
    t.match(message, `${at} does not offer TLS, and DB_SSL is require: turn TLS on at the server (`, engine)
    t.match(message, 'or set DB_SSL=off in .env when the connection stays on this host or a private network')
  }
})
