import { MysqlAdapter, sql, type Insertable, type Kysely, type RawBuilder } from 'kysely'
import type { Database, Flag } from './types.js'

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

/** Rows per INSERT statement in `upsert`: well inside SQLite's bound-variable limit and MySQL's packet size. */
const UPSERT_CHUNK = 500

/**
 * INSERT the rows; where one hits an existing primary or unique key, UPDATE that row instead:
 * `update` columns take the new row's value, `set` columns an expression over the existing row
 * (e.g. `version + 1`). SQLite says `on conflict (...) do update`, MySQL `on duplicate key update`
 * (with `values(col)`, which MariaDB and MySQL 8 both still accept).
 */
export async function upsert<TB extends keyof Database & string>(
  db: Kysely<Database>,
  table: TB,
  rows: Insertable<Database[TB]>[],
  options: { key: string[]; update?: string[]; set?: Record<string, RawBuilder<unknown>> },
): Promise<void> {
  const anyDb = db as unknown as Kysely<any>
  const mysql = isMysql(anyDb)
  const fromNewRow = (column: string) => (mysql ? sql`values(${sql.ref(column)})` : sql.ref(`excluded.${column}`))
  const assignments = {
    ...Object.fromEntries((options.update ?? []).map((column) => [column, fromNewRow(column)])),
    ...options.set,
  }
  for (let start = 0; start < rows.length; start += UPSERT_CHUNK) {
    const insert = anyDb.insertInto(table as string).values(rows.slice(start, start + UPSERT_CHUNK) as any[])
    await (mysql
      ? insert.onDuplicateKeyUpdate(assignments as any)
      : insert.onConflict((oc) => oc.columns(options.key).doUpdateSet(assignments as any))
    ).execute()
  }
}
