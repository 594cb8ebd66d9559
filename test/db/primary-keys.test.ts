import t from 'tap'
import { sql, type Kysely } from 'kysely'
import { createDb, MIGRATION_QUERY_TIMEOUT_MS } from '../../db/index.js'
import { migrateToLatest } from '../../db/migrate.js'
import { MIGRATIONS } from '../../app.js'
import { eachDialect, freshDatabase, testConfig, type Dialect } from '../helpers/app.js'

/**
 * Every table a migrated database holds has a primary key, the migration runner's own included:
 * Galera replicates a row by its key (a table without one is refused under `wsrep_mode =
 * REQUIRED_PRIMARY_KEY`, and its rows are applied slowly, or differently, on the other nodes), and
 * the move to another engine (`npm run migrate-data`) copies by it. Checked on each engine's catalog.
 */
const KEYLESS: Record<Dialect, ReturnType<typeof sql<{ name: string }>>> = {
  mysql: sql`select t.table_name as name from information_schema.tables t
    where t.table_schema = database() and t.table_type = 'BASE TABLE' and not exists (
      select 1 from information_schema.table_constraints c where c.table_schema = t.table_schema
        and c.table_name = t.table_name and c.constraint_type = 'PRIMARY KEY')
    order by 1`,
  postgres: sql`select t.table_name as name from information_schema.tables t
    where t.table_schema = current_schema() and t.table_type = 'BASE TABLE' and not exists (
      select 1 from information_schema.table_constraints c where c.table_schema = t.table_schema
        and c.table_name = t.table_name and c.constraint_type = 'PRIMARY KEY')
    order by 1`,
  sqlite: sql`select m.name from sqlite_master m where m.type = 'table' and m.name not like 'sqlite_%'
    and not exists (select 1 from pragma_table_info(m.name) p where p.pk > 0)
    order by 1`,
}

const TABLES: Record<Dialect, ReturnType<typeof sql<{ name: string }>>> = {
  mysql: sql`select table_name as name from information_schema.tables
    where table_schema = database() and table_type = 'BASE TABLE'`,
  postgres: sql`select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE'`,
  sqlite: sql`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`,
}

eachDialect(t, async (t, dialect) => {
  const db = createDb({
    ...testConfig(await freshDatabase(t, dialect)),
    DB_QUERY_TIMEOUT_MS: MIGRATION_QUERY_TIMEOUT_MS,
  }) as unknown as Kysely<any>
  t.teardown(() => db.destroy())
  await migrateToLatest(db, MIGRATIONS)
  const tables = (await TABLES[dialect].execute(db)).rows.map((r) => r.name)
  t.ok(
    tables.includes('users') && tables.includes('kysely_migration'),
    `${tables.length} tables, the runner's among them`,
  )
  t.same((await KEYLESS[dialect].execute(db)).rows, [], 'no table without a primary key')
})
