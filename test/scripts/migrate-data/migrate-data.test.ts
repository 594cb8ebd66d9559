// `npm run migrate-data`: a database with rows in every table, made through the app on SQLite, moved to
// MySQL and back (to a new SQLite file and back without MySQL), compared row for row, then served; the
// table list held to the migrated schema on every engine; the refusals. The move from MySQL:
// migrate-data-mysql.test.ts; through PostgreSQL: migrate-data-postgres.test.ts.
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import t, { type Test } from 'tap'
import SQLite from 'better-sqlite3'
import { eachDialect, freshDatabase, testConfig, type Dialect } from '../../helpers/app.js'
import { openEndpoint, USAGE } from '../../../scripts/migrate-data/index.js'
import { checkOrder, checkTables, inKeyOrder, migrateTarget, TABLES } from '../../../scripts/migrate-data/move.js'
import type { Store } from '../../../scripts/migrate-data/stores.js'
import { endpoint, migrateData, moveAlong } from '../../helpers/migrate-data.js'

const CLI = join(import.meta.dirname, '../../../scripts/migrate-data/index.js')

moveAlong(t, ['sqlite', process.env.TEST_MYSQL_URL ? 'mysql' : 'sqlite', 'sqlite'])

/** A database migrated by this code, and a store on it. */
async function migrated(t: Test, dialect: Dialect): Promise<{ env: Record<string, string>; store: Store }> {
  const env = await freshDatabase(t, dialect)
  await migrateTarget(testConfig(env))
  const store = await openEndpoint(endpoint(env), 'target')
  t.teardown(() => store.close())
  return { env, store }
}

eachDialect(t, async (t, dialect) => {
  t.test("the move's table list is the migrated schema's, copied in foreign-key order", async (t) => {
    const { store } = await migrated(t, dialect)
    const present = await store.tables()
    t.same([...present].sort(), [...TABLES].sort(), "every table of the schema is the platform's or a manifest's")
    const fks = await store.foreignKeys()
    t.ok(fks.length > 20, `${fks.length} foreign keys read`)
    const order = inKeyOrder(TABLES, fks)
    t.same([...order].sort(), [...TABLES].sort(), 'the order holds every table once')
    t.doesNotThrow(() => checkOrder(fks, order), 'every parent before its children')
    t.throws(() => checkOrder(fks, [...order].reverse()), /before/, 'a wrong order is caught')
    t.same(inKeyOrder(['child', 'parent'], [['child', 'parent']]), ['parent', 'child'], 'a parent listed late moves up')
    t.throws(
      () =>
        inKeyOrder(
          ['a', 'b'],
          [
            ['a', 'b'],
            ['b', 'a'],
          ],
        ),
      /cycle/,
      'a cycle is refused',
    )
    t.throws(() => checkTables([...present, 'future_feature'], 'db'), /does not know: future_feature/)
  })
})

t.test('a table a later migration adds, unknown to the move, stops it before anything is written', async (t) => {
  const { env, store } = await migrated(t, 'sqlite')
  await store.close()
  const db = new SQLite(env.DB_PATH!)
  db.exec("create table future_feature (id text primary key); insert into future_feature values ('x')")
  db.close()
  const dir = mkdtempSync(join(tmpdir(), 'outpost-move-'))
  const to = join(dir, 'target.db')
  const refused = await migrateData('--from', `sqlite:${env.DB_PATH}`, '--to', `sqlite:${to}`)
  t.equal(refused.status, 1)
  t.match(refused.stderr, /does not know: future_feature/)
  t.match(refused.stderr, /the `tables` of its feature's manifest \(features\/<name>\/index\.ts\)/)
  t.notOk(existsSync(to), 'the target was not even created')
})

t.test('a source behind this code (a migration pending) is refused', async (t) => {
  const { env, store } = await migrated(t, 'sqlite')
  await store.close()
  const db = new SQLite(env.DB_PATH!)
  db.exec("delete from kysely_migration where name = '0096_drop_users_login_locked_until'")
  db.close()
  const refused = await migrateData('--from', `sqlite:${env.DB_PATH}`, '--to', `sqlite:${env.DB_PATH}.copy`)
  t.equal(refused.status, 1)
  t.match(refused.stderr, /1 migration\(s\) pending.*npm run migrate/)
})

t.test('usage', async (t) => {
  const help = spawnSync(process.execPath, [CLI, '--help'], { encoding: 'utf8', timeout: 60_000 })
  t.equal(help.status, 0, '--help exits 0')
  t.equal(help.stdout.trim(), USAGE)
  t.match(help.stdout, /Stop the Outpost server before the move/)
  t.match(help.stdout, /CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci/)
  t.match(help.stdout, /postgres:\/\/USER:PASS@HOST:5432\/NAME/)
  t.match(help.stdout, /ENCODING 'UTF8'/)
  const none = await migrateData()
  t.equal(none.status, 2)
  t.match(none.stderr, /--from and --to are both required/)
  const bad = await migrateData('--from', 'x.db', '--to', 'sqlite:x.db')
  t.equal(bad.status, 2)
  t.match(bad.stderr, /give sqlite:PATH, mysql:\/\/.* or postgres:\/\//)
  const unknown = await migrateData('--from', 'oracle://db/x', '--to', 'sqlite:x.db')
  t.equal(unknown.status, 2)
  t.match(unknown.stderr, /--from oracle: is not a database this move knows \(mysql: postgres: postgresql:\)/)
  for (const url of ['postgres://db.example', 'postgresql://u:secret@db.example:5433/', 'mysql://db.example/']) {
    const none = await migrateData('--from', 'sqlite:x.db', '--to', url)
    t.equal(none.status, 2, `${url}: a usage error`)
    t.match(none.stderr, /names no database: (postgres|postgresql|mysql):\/\/USER:PASS@HOST:(5432|3306)\/NAME/)
    t.notMatch(none.stderr, /secret/, 'the password is not echoed')
  }
  const tls = await migrateData('--from', 'sqlite:x.db', '--to', 'postgres://u@db.example/outpost?ssl=maybe')
  t.equal(tls.status, 2)
  t.match(tls.stderr, /--to postgres:\/\/db.example\/outpost: ssl=maybe is not off, require or verify/)
  const missing = await migrateData('--from', 'sqlite:/nonexistent/outpost.db', '--to', 'sqlite:/tmp/x.db')
  t.equal(missing.status, 2)
  t.match(missing.stderr, /No such file/)
})
