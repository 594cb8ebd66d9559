import { MysqlAdapter, sql, type InsertQueryBuilder, type Kysely } from 'kysely'
import type { Flag } from './types.js'

/**
 * The few places where SQLite and MySQL differ, kept together so services stay portable.
 */
export function isMysql(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof MysqlAdapter
}

export const flag = (value: boolean): Flag => (value ? 1 : 0)

/** A unique or primary key was violated: the database settled a race or a duplicate. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; errno?: number }
  return (
    e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || e?.errno === 1062
  )
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
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

/** The database did not answer (as opposed to refusing a statement): the API answers 503. */
export function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { code?: string; fatal?: boolean; message?: string }
  if (!e) return false
  if (e.code && UNAVAILABLE_CODES.has(e.code)) return true
  if (e.fatal === true) return true
  return e.message === 'Pool is closed.' || e.message === 'driver has already been destroyed'
}

/** Number of rows an UPDATE or DELETE matched, as a plain number on both drivers. */
export function affected(result: { numUpdatedRows?: bigint; numDeletedRows?: bigint }): number {
  return Number(result.numUpdatedRows ?? result.numDeletedRows ?? 0n)
}

/** MySQL chose this transaction as a deadlock victim, or a lock wait ran out: safe to run again. */
export function isRetryableConflict(error: unknown): boolean {
  const e = error as { errno?: number; code?: string }
  return e?.errno === 1213 || e?.errno === 1205 || e?.code === 'SQLITE_BUSY'
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
