// `npm run migrate-data` through PostgreSQL: a database with rows in every table, made through the app
// on SQLite, moved into PostgreSQL, from there into MySQL (when TEST_MYSQL_URL is set) and on into a new
// SQLite file, compared row for row with the first after each move, each copy served. Then what the move
// refuses on PostgreSQL, writing nothing: a server that does not answer, TLS the server does not offer,
// a database that does not exist, a target with tables of its own, and a value PostgreSQL does not store
// (the target is left as it was, and the same command moves once the source is fixed).
import { createServer } from 'node:net'
import t, { type Test } from 'tap'
import SQLite from 'better-sqlite3'
import pg from 'pg'
import { freshDatabase, serverUrl, testConfig, type Dialect } from '../../helpers/app.js'
import { postgresConnection } from '../../../bench/postgres.js'
import { openEndpoint } from '../../../scripts/migrate-data/index.js'
import { migrateTarget, nonEmptyTables } from '../../../scripts/migrate-data/move.js'
import { endpoint, migrateData, moveAlong } from '../../helpers/migrate-data.js'

const POSTGRES_URL = serverUrl('postgres')

/** A port on which nothing listens: one the system handed out, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** A SQLite database migrated by this code, rows only where the migrations seed them. */
async function migratedSqlite(t: Test): Promise<Record<string, string>> {
  const env = await freshDatabase(t, 'sqlite')
  await migrateTarget(testConfig(env))
  return env
}

/** Runs `statement` on the test's own PostgreSQL database `env`. */
async function onDatabase(env: Record<string, string>, statement: string): Promise<unknown[]> {
  const client = new pg.Client({ ...postgresConnection(POSTGRES_URL!), database: env.DB_NAME })
  await client.connect()
  try {
    return (await client.query(statement)).rows
  } finally {
    await client.end()
  }
}

if (!POSTGRES_URL) {
  t.test('through PostgreSQL', { skip: 'TEST_POSTGRES_URL is not set: the PostgreSQL leg did not run' }, async () => {})
} else {
  const path: Dialect[] = ['sqlite', 'postgres', ...(serverUrl('mysql') ? (['mysql'] as const) : []), 'sqlite']
  moveAlong(t, path)

  t.test('a PostgreSQL server that does not answer stops the move, which wrote nothing', async (t) => {
    const source = await migratedSqlite(t)
    const nowhere = `postgres://postgres@127.0.0.1:${await closedPort()}/outpost`
    const to = await migrateData('--from', endpoint(source), '--to', nowhere)
    t.equal(to.status, 1)
    t.match(to.stderr, /^Move failed: .*ECONNREFUSED/)
    const from = await migrateData('--from', nowhere, '--to', `sqlite:${source.DB_PATH}.copy`)
    t.equal(from.status, 1)
    t.match(from.stderr, /^Move failed: .*ECONNREFUSED/)
  })

  t.test('?ssl=require asks the server for TLS (which the test server does not offer)', async (t) => {
    const source = await migratedSqlite(t)
    const env = await freshDatabase(t, 'postgres')
    const to = await migrateData('--from', endpoint(source), '--to', `${endpoint(env)}?ssl=require`)
    t.equal(to.status, 1)
    t.match(to.stderr, /^Move failed: The server does not support SSL connections/)
  })

  t.test('a PostgreSQL database that does not exist is named', async (t) => {
    const source = await migratedSqlite(t)
    const env = await freshDatabase(t, 'postgres')
    const missing = endpoint({ ...env, DB_NAME: `${env.DB_NAME}_missing` })
    const to = await migrateData('--from', endpoint(source), '--to', missing)
    t.equal(to.status, 1)
    t.match(to.stderr, new RegExp(`Move failed: database "${env.DB_NAME}_missing" does not exist`))
  })

  t.test('a PostgreSQL target with tables of its own is refused before the migrations run', async (t) => {
    const source = await migratedSqlite(t)
    const env = await freshDatabase(t, 'postgres')
    await onDatabase(env, "create table foreign_thing (id text primary key); insert into foreign_thing values ('x')")
    const refused = await migrateData('--from', endpoint(source), '--to', endpoint(env))
    t.equal(refused.status, 1)
    t.match(refused.stderr, /PostgreSQL database \S+ at .* holds tables that are not Outpost's \(foreign_thing\)/)
    t.match(refused.stderr, /Nothing was written/)
    const tables = await onDatabase(
      env,
      "select table_name from information_schema.tables where table_schema = 'public'",
    )
    t.same(tables, [{ table_name: 'foreign_thing' }], 'not even the migrations ran')
  })

  t.test(
    'a value PostgreSQL refuses stops the move and leaves the target as it was; the fixed source then moves',
    async (t) => {
      const source = await migratedSqlite(t)
      const file = new SQLite(source.DB_PATH!)
      // A NUL in text: SQLite and MySQL store it, PostgreSQL does not (the API never lets one in).
      file.exec("update leaderboards set name = 'Main' || char(0) || 'board'")
      file.close()
      const env = await freshDatabase(t, 'postgres')
      const failed = await migrateData('--from', endpoint(source), '--to', endpoint(env))
      t.equal(failed.status, 1)
      t.match(failed.stderr, /^Move failed: copying leaderboards: invalid byte sequence for encoding "UTF8": 0x00/)
      const target = await openEndpoint(endpoint(env), 'target')
      try {
        const { data, seeded } = await nonEmptyTables(target)
        t.same(data, [], 'no row of the source stayed: the move was one transaction, rolled back')
        t.ok(seeded.includes('leaderboards'), "the migrations' default board is there again")
      } finally {
        await target.close()
      }
      const fixed = new SQLite(source.DB_PATH!)
      fixed.exec("update leaderboards set name = 'Main board'")
      fixed.close()
      const moved = await migrateData('--from', endpoint(source), '--to', endpoint(env))
      t.equal(moved.status, 0, `the same command, run again, moves: ${moved.stderr}`)
      const boards = await onDatabase(env, 'select name from leaderboards')
      t.same(boards, [{ name: 'Main board' }])
    },
  )
}
