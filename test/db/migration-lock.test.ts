import t from 'tap'
import { sql, type Kysely } from 'kysely'
import { createDb, MIGRATION_QUERY_TIMEOUT_MS } from '../../db/index.js'
import { migrateToLatest } from '../../db/migrate.js'
import { MIGRATIONS } from '../../app.js'
import { eachDialect, freshDatabase, testConfig } from '../helpers/app.js'

/**
 * The migration lock of MySQL (db/migration-lock.ts): a row with a lease, so that it holds across
 * the nodes of a cluster (test/db/galera-races.test.ts runs two on two nodes). Here, on one server,
 * the lease's rules: a run waits for another server's lease until it lapses, takes a lease its own
 * server's dead run left at once, and stops when it has lost its own. SQLite and PostgreSQL keep
 * Kysely's lock and have no such table.
 */
const migrating = (env: Record<string, string>) =>
  createDb({
    ...testConfig(env),
    DB_POOL_SIZE: 1,
    DB_QUERY_TIMEOUT_MS: MIGRATION_QUERY_TIMEOUT_MS,
  }) as unknown as Kysely<any>

eachDialect(t, async (t, dialect) => {
  const env = await freshDatabase(t, dialect)
  const db = migrating(env)
  t.teardown(() => db.destroy())
  await migrateToLatest(db, MIGRATIONS)
  if (dialect !== 'mysql') {
    const tables = await db.introspection.getTables()
    t.notOk(
      tables.some((table) => table.name === 'migration_lock'),
      'no lock row: one file, or one primary, keeps Kysely’s lock',
    )
    return
  }
  const row = async () =>
    (await sql<{ holder: string | null; node: string | null }>`select holder, node from migration_lock`.execute(db))
      .rows
  t.same(await row(), [{ holder: null, node: null }], 'one row, given back after the run')
  const { rows } = await sql<{ node: string }>`select concat(@@hostname, ':', @@port) as node`.execute(db)
  const here = rows[0]!.node

  t.test('a lease held by a run on another server: the run waits until it lapses', async (t) => {
    await sql`update migration_lock set holder = 'elsewhere', node = 'db2:3306',
      expires_at = utc_timestamp(3) + interval 2 second`.execute(db)
    const started = Date.now()
    t.same(await migrateToLatest(db, MIGRATIONS), [], 'nothing left to apply')
    const waited = Date.now() - started
    t.ok(waited >= 1500, `it waited for the lease (${waited} ms)`)
    t.same(await row(), [{ holder: null, node: null }], 'and gave its own back')
  })

  t.test('a lease left by a dead run of this server: taken at once, whatever its end', async (t) => {
    await sql`update migration_lock set holder = 'killed', node = ${here},
      expires_at = utc_timestamp(3) + interval 1 hour`.execute(db)
    const started = Date.now()
    t.same(await migrateToLatest(db, MIGRATIONS), [])
    const waited = Date.now() - started
    t.ok(waited < 5000, `no wait for its lease (${waited} ms): this server's live runs hold its GET_LOCK`)
  })

  t.test('a run that lost its lease stops at its next statement; the next run finishes', async (t) => {
    const freshEnv = await freshDatabase(t, dialect)
    const fresh = migrating(freshEnv)
    t.teardown(() => fresh.destroy())
    let stolen = false
    const run = migrateToLatest(fresh, MIGRATIONS, {
      onStep: async (event) => {
        if (stolen || event.phase !== 'recorded') return
        stolen = true
        // Another run takes the lease (as after a pause past its end): the holder's next renewal sees it.
        // (On a connection of its own: the run holds its one connection meanwhile.)
        const other = createDb(testConfig(freshEnv))
        try {
          await sql`update migration_lock set holder = 'thief', node = 'db2:3306'`.execute(other)
        } finally {
          await other.destroy()
        }
        await new Promise((resolve) => setTimeout(resolve, 6000))
      },
    })
    await t.rejects(run, /failed: the migration lock was lost \(another run took it/)
    await sql`update migration_lock set holder = null, node = null, expires_at = null`.execute(fresh)
    const rest = await migrateToLatest(fresh, MIGRATIONS)
    t.equal(rest.at(-1), Object.keys(MIGRATIONS).at(-1), 'a later run resumes and finishes')
  })
})
