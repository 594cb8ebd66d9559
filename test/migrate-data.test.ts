// `npm run migrate-data`: a database with rows in every table, made through the app on SQLite, moved to
// MySQL and back (to a new SQLite file and back without MySQL), compared row for row, then served; the
// table list held to the migrated schema; the refusals. The move from MySQL: migrate-data-mysql.test.ts.
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import t, { type Test } from 'tap'
import SQLite from 'better-sqlite3'
import { freshDatabase, testConfig, type Dialect } from './helpers/app.js'
import { USAGE } from '../scripts/migrate-data.js'
import { checkOrder, checkTables, migrateTarget, TABLES } from '../scripts/data-move.js'
import { openMysql, openSqlite, parseMysqlUrl, type Store } from '../scripts/data-stores.js'
import { endpoint, migrateData, moveBothWays } from './helpers/migrate-data.js'

const MYSQL_URL = process.env.TEST_MYSQL_URL
const CLI = join(import.meta.dirname, '../scripts/migrate-data.js')

moveBothWays(t, 'sqlite')

/** A database migrated by this code, and a store on it. */
async function migrated(t: Test, dialect: Dialect): Promise<{ env: Record<string, string>; store: Store }> {
  const env = await freshDatabase(t, dialect)
  await migrateTarget(testConfig(env))
  const store =
    dialect === 'sqlite' ? openSqlite(env.DB_PATH!, 'target') : await openMysql(parseMysqlUrl(endpoint(env)), 'target')
  t.teardown(() => store.close())
  return { env, store }
}

for (const dialect of MYSQL_URL ? (['sqlite', 'mysql'] as const) : (['sqlite'] as const)) {
  t.test(`${dialect}: the move's table list is the migrated schema's, in foreign-key order`, async (t) => {
    const { store } = await migrated(t, dialect)
    const present = await store.tables()
    t.same([...present].sort(), [...TABLES].sort(), 'every table of the schema is listed, and no other')
    const fks = await store.foreignKeys()
    t.ok(fks.length > 20, `${fks.length} foreign keys read`)
    t.doesNotThrow(() => checkOrder(fks), 'every parent before its children')
    t.throws(() => checkOrder(fks, [...TABLES].reverse()), /before/, 'a wrong order is caught')
    t.throws(() => checkTables([...present, 'future_feature'], 'db'), /does not know: future_feature/)
  })
}

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
  t.match(refused.stderr, /scripts\/data-move\.ts/)
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
  const none = await migrateData()
  t.equal(none.status, 2)
  t.match(none.stderr, /--from and --to are both required/)
  const bad = await migrateData('--from', 'postgres://x', '--to', 'sqlite:x.db')
  t.equal(bad.status, 2)
  t.match(bad.stderr, /give sqlite:PATH or mysql:/)
  const missing = await migrateData('--from', 'sqlite:/nonexistent/outpost.db', '--to', 'sqlite:/tmp/x.db')
  t.equal(missing.status, 2)
  t.match(missing.stderr, /No such file/)
})
