import { MysqlAdapter, type Kysely } from 'kysely'
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
