import { MysqlAdapter, sql, type InsertQueryBuilder, type Insertable, type Kysely, type RawBuilder } from 'kysely'
import type { Database, Db, Flag } from './types.js'
import { POOL_WAIT_TIMEOUT, QUERY_TIMEOUT } from './mysql-driver.js'

/**
 * The few places where SQLite and MySQL differ, kept together so services stay portable.
 */
export function isMysql(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof MysqlAdapter
}

export const flag = (value: boolean): Flag => (value ? 1 : 0)

/** A unique or primary key was violated: the database settled a race or a duplicate. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; errno?: number }
  return e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || e?.errno === 1062
}

/** A row referenced a parent that does not exist (or no longer does). */
export function isForeignKeyViolation(error: unknown): boolean {
  const e = error as { code?: string; errno?: number }
  return e?.code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || e?.errno === 1452
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  QUERY_TIMEOUT,
  POOL_WAIT_TIMEOUT,
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_ACCESS_DENIED_ERROR',
  'ER_BAD_DB_ERROR',
  'SQLITE_BUSY',
  'SQLITE_CANTOPEN',
  'SQLITE_IOERR',
  'SQLITE_FULL',
  'SQLITE_READONLY',
])

/**
 * The database did not answer (as opposed to refusing a statement), or a lock conflict outlasted its
 * retries (db/transaction.ts): the API answers 503 with Retry-After, as the client's retry can succeed.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { code?: string; fatal?: boolean; message?: string }
  if (!e) return false
  if (e.code && UNAVAILABLE_CODES.has(e.code)) return true
  if (isRetryableConflict(e)) return true
  if (e.fatal === true) return true
  return (
    e.message === 'Pool is closed.' ||
    e.message === 'driver has already been destroyed' ||
    e.message === 'The database connection is not open'
  )
}

/** A statement's result as Kysely reports it: a builder's UPDATE, DELETE or INSERT result, or a raw QueryResult. */
interface WriteResult {
  numUpdatedRows?: bigint
  numDeletedRows?: bigint
  numInsertedOrUpdatedRows?: bigint
  numAffectedRows?: bigint
}

/**
 * Number of rows an UPDATE or DELETE matched, or an INSERT wrote, as a plain number on both drivers.
 * An upsert's INSERT counts 1 for a new row and, on MySQL, 2 for an updated one and 0 for one left as it was.
 */
export function affected(result: WriteResult): number {
  return Number(
    result.numUpdatedRows ?? result.numDeletedRows ?? result.numInsertedOrUpdatedRows ?? result.numAffectedRows ?? 0n,
  )
}

/**
 * MySQL chose this transaction as a deadlock victim, or a lock wait ran out: safe to run again.
 * SQLite's busy answer is not retried here: the driver (sqlite-driver.ts) has already waited for the
 * lock up to the query bound, and another round would outlast it.
 */
export function isRetryableConflict(error: unknown): boolean {
  const e = error as { errno?: number; code?: string }
  return e?.errno === 1213 || e?.errno === 1205
}

/** In an upsert's update part, the value the conflicting new row carried for `column`. */
function fromNewRow(mysql: boolean, column: string) {
  return mysql ? sql`values(${sql.ref(column)})` : sql.ref(`excluded.${column}`)
}

/** Rows per INSERT statement in `upsert`: well inside SQLite's bound-variable limit and MySQL's packet size. */
const UPSERT_CHUNK = 500

/**
 * INSERT the rows; where one hits an existing primary or unique key, UPDATE that row instead:
 * `update` columns take the new row's value, `set` columns an expression over the existing row
 * (e.g. `version + 1`). SQLite says `on conflict (...) do update`, MySQL `on duplicate key update`
 * (with `values(col)`, which MariaDB and MySQL 8 both still accept).
 */
export async function upsert<TB extends keyof Database & string>(
  db: Db,
  table: TB,
  rows: Insertable<Database[TB]>[],
  options: { key: string[]; update?: string[]; set?: Record<string, RawBuilder<unknown>> },
): Promise<void> {
  const anyDb = db as unknown as Kysely<any>
  const mysql = isMysql(anyDb)
  const assignments = {
    ...Object.fromEntries((options.update ?? []).map((column) => [column, fromNewRow(mysql, column)])),
    ...options.set,
  }
  for (let start = 0; start < rows.length; start += UPSERT_CHUNK) {
    const insert = anyDb.insertInto(table as string).values(rows.slice(start, start + UPSERT_CHUNK) as any[])
    await (
      mysql
        ? insert.onDuplicateKeyUpdate(assignments as any)
        : insert.onConflict((oc) => oc.columns(options.key).doUpdateSet(assignments as any))
    ).execute()
  }
}

/**
 * `SELECT … FOR UPDATE` on MySQL, where concurrent transactions run side by side and the row lock
 * orders them. SQLite has no such clause and needs none: one connection per process runs one
 * transaction at a time, and the database file takes one writer at a time.
 */
export function forUpdate<QB extends { forUpdate(): QB }>(db: Kysely<any>, query: QB): QB {
  return isMysql(db) ? query.forUpdate() : query
}

/**
 * An insert that, for a row whose key exists, adds the inserted value of `column` to the stored one
 * instead (counters kept in SQL: correct whatever the concurrency, in one statement).
 */
export function addOnConflict<QB extends InsertQueryBuilder<any, any, any>>(
  db: Kysely<any>,
  query: QB,
  keyColumns: string[],
  column: string,
): QB {
  const ref = sql.ref(column)
  if (isMysql(db)) return query.onDuplicateKeyUpdate({ [column]: sql`${ref} + values(${ref})` }) as QB
  return query.onConflict((oc) => oc.columns(keyColumns).doUpdateSet({ [column]: sql`${ref} + excluded.${ref}` })) as QB
}

/**
 * Inserts the row, or when its key exists leaves the stored row as it is. Unlike INSERT IGNORE this
 * takes the row's write lock on MySQL either way (a duplicate under INSERT IGNORE takes only a shared
 * lock, and two transactions that then both want to write it deadlock).
 */
export function insertOrLock<QB extends InsertQueryBuilder<any, any, any>>(
  db: Kysely<any>,
  query: QB,
  keyColumns: string[],
  column: string,
): QB {
  const ref = sql.ref(column)
  if (isMysql(db)) return query.onDuplicateKeyUpdate({ [column]: ref }) as QB
  return query.onConflict((oc) => oc.columns(keyColumns).doUpdateSet({ [column]: ref })) as QB
}
