// The migration crash tests' common parts (test/db/migrations-killed.test.ts, migrations-sigkill.test.ts):
// what a migrated database is, compared with one migrated in one clean run, and a crash as MySQL sees it.
import type { Test } from 'tap'
import { createConnection, type Connection } from 'mysql2/promise'
import { sql, type Kysely } from 'kysely'
import { createDb, MIGRATION_QUERY_TIMEOUT_MS } from '../../db/index.js'
import { migrateToLatest } from '../../db/migrate.js'
import { MIGRATIONS } from '../../app.js'
import { mysqlConnection } from '../../bench/mysql.js'
import { freshDatabase, testConfig, type Dialect } from './app.js'

export type Env = Record<string, string>
export type Snapshot = Record<string, string[]>
const MYSQL_URL = process.env.TEST_MYSQL_URL

/** Values that differ between two runs of the same migrations: generated ids, the time a row or a migration was written. */
const VOLATILE = new Set(['id', 'created_at', 'updated_at', 'timestamp'])

const json = (value: unknown) => JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))

async function rows(db: Kysely<any>, query: ReturnType<typeof sql>): Promise<string[]> {
  return (await query.execute(db)).rows.map((r) => json(r))
}

/** MySQL: the database's default collation, every table, column, index and foreign key, as information_schema says. */
async function mysqlSchema(db: Kysely<any>): Promise<Record<string, string[]>> {
  return {
    database: await rows(
      db,
      sql`select default_character_set_name, default_collation_name from information_schema.schemata
        where schema_name = database()`,
    ),
    tables: await rows(
      db,
      sql`select table_name, engine, table_collation from information_schema.tables
        where table_schema = database() order by table_name`,
    ),
    columns: await rows(
      db,
      sql`select table_name, column_name, ordinal_position, column_default, is_nullable, column_type,
          character_set_name, collation_name, column_key, extra
        from information_schema.columns where table_schema = database() order by table_name, ordinal_position`,
    ),
    indexes: await rows(
      db,
      sql`select table_name, index_name, seq_in_index, column_name, non_unique, sub_part, index_type
        from information_schema.statistics where table_schema = database()
        order by table_name, index_name, seq_in_index`,
    ),
    foreignKeys: await rows(
      db,
      sql`select k.table_name, k.constraint_name, k.column_name, k.referenced_table_name, k.referenced_column_name,
          r.update_rule, r.delete_rule
        from information_schema.key_column_usage k join information_schema.referential_constraints r
          on r.constraint_schema = k.constraint_schema and r.constraint_name = k.constraint_name
        where k.table_schema = database() order by k.table_name, k.constraint_name, k.ordinal_position`,
    ),
  }
}

/** SQLite: every table, index and trigger as its `create` statement (ALTERs rewrite it). */
async function sqliteSchema(db: Kysely<any>): Promise<Record<string, string[]>> {
  return {
    objects: await rows(
      db,
      sql`select type, name, tbl_name, sql from sqlite_master where name not like 'sqlite_%' order by type, name`,
    ),
  }
}

/** PostgreSQL: every table, column, index (as its definition) and constraint of the database's schema. */
async function postgresSchema(db: Kysely<any>): Promise<Record<string, string[]>> {
  return {
    tables: await rows(
      db,
      sql`select table_name from information_schema.tables where table_schema = current_schema() order by table_name`,
    ),
    columns: await rows(
      db,
      sql`select table_name, column_name, ordinal_position, column_default, is_nullable, data_type,
          character_maximum_length, is_identity, collation_name
        from information_schema.columns where table_schema = current_schema() order by table_name, ordinal_position`,
    ),
    indexes: await rows(
      db,
      sql`select tablename, indexname, indexdef from pg_indexes where schemaname = current_schema()
        order by tablename, indexname`,
    ),
    constraints: await rows(
      db,
      sql`select c.conrelid::regclass::text as table_name, c.conname, c.contype, pg_get_constraintdef(c.oid) as def
        from pg_constraint c join pg_namespace n on n.oid = c.connamespace
        where n.nspname = current_schema() order by 1, 2`,
    ),
  }
}

/** Each engine's catalog query and its list of tables. */
const CATALOGS: Record<Dialect, { schema: (db: Kysely<any>) => Promise<Snapshot>; tables: ReturnType<typeof sql> }> = {
  mysql: {
    schema: mysqlSchema,
    tables: sql`select table_name as name from information_schema.tables
      where table_schema = database() order by table_name`,
  },
  sqlite: {
    schema: sqliteSchema,
    tables: sql`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`,
  },
  postgres: {
    schema: postgresSchema,
    tables: sql`select table_name as name from information_schema.tables
      where table_schema = current_schema() order by table_name`,
  },
}

/**
 * The schema and every row of every table (less the times they were written), and the migrations
 * Kysely recorded. The step journal must be empty once the migrations are done.
 */
async function databaseOf(db: Kysely<any>, dialect: Dialect): Promise<Record<string, string[]>> {
  const catalog = CATALOGS[dialect]
  const schema = await catalog.schema(db)
  const tables = (await catalog.tables.execute(db)).rows.map((r) => (r as { name: string }).name)
  const data: Record<string, string[]> = {}
  for (const table of tables) {
    const all = (await db.selectFrom(table).selectAll().execute()) as Array<Record<string, unknown>>
    if (all.length === 0) continue
    data[`rows of ${table}`] = all
      .map((row) => json(Object.entries(row).filter(([column]) => !VOLATILE.has(column))))
      .sort()
  }
  return { ...schema, ...data }
}

export const migratingDb = (env: Env) =>
  createDb({ ...testConfig(env), DB_POOL_SIZE: 1, DB_QUERY_TIMEOUT_MS: MIGRATION_QUERY_TIMEOUT_MS })

export async function snapshot(env: Env, dialect: Dialect): Promise<Snapshot> {
  const db = createDb(testConfig(env))
  try {
    return await databaseOf(db, dialect)
  } finally {
    await db.destroy()
  }
}

/** A database migrated in one clean run, and the statements (`migration:step`) that run executed. */
export async function reference(t: Test, dialect: Dialect): Promise<{ database: Snapshot; statements: string[] }> {
  const env = await freshDatabase(t, dialect)
  const db = migratingDb(env)
  const statements: string[] = []
  try {
    await migrateToLatest(db, MIGRATIONS, {
      onStep: (e) => void (e.phase === 'applied' && statements.push(`${e.migration}:${e.step}`)),
    })
  } finally {
    await db.destroy()
  }
  return { database: await snapshot(env, dialect), statements }
}

export async function adminOf(t: Test, env: Env): Promise<Connection> {
  const admin = await createConnection({ ...mysqlConnection(MYSQL_URL!), database: env.DB_NAME })
  t.teardown(() => admin.end())
  return admin
}

/** What MySQL sees of a crash: the session ends (KILL), its transaction rolled back, its lock released. */
export async function endSessions(admin: Connection): Promise<void> {
  const [rows] = await admin.query(
    'select id from information_schema.processlist where db = database() and id <> connection_id()',
  )
  for (const { id } of rows as Array<{ id: number }>) await admin.query(`kill ${Number(id)}`).catch(() => {})
}
