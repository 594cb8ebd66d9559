import { sql, type InsertQueryBuilder, type Insertable, type Kysely, type RawBuilder, type SqlBool } from 'kysely'
import type { Database, Db, Flag } from './types.js'
import type { ErrorClasses, ErrorLike } from './engine.js'
import { ENGINES, engineOf } from './engines/index.js'
import { schemaOf } from './game-schema.js'

/**
 * The SQL forms and error classes the code uses, over whichever engine the database is
 * (db/engines/): services stay portable and never ask which engine they run on.
 */
export const flag = (value: boolean): Flag => (value ? 1 : 0)

/** A unique or primary key was violated: the database settled a race or a duplicate. */
export function isUniqueViolation(error: unknown): boolean {
  return anyEngine(error, 'unique')
}

/** The database refused the statement for the values it carried (too long, out of range, a key, a check). */
export function isStatementRefused(error: unknown): boolean {
  return anyEngine(error, 'refused')
}

/** A row referenced a parent that does not exist (or no longer does). */
export function isForeignKeyViolation(error: unknown): boolean {
  return anyEngine(error, 'foreignKey')
}

/** Whether any engine classes `error` as `kind` (their codes do not overlap). */
export function anyEngine(error: unknown, kind: keyof ErrorClasses): boolean {
  if (!error || typeof error !== 'object') return false
  const e = error as ErrorLike
  for (const engine of Object.values(ENGINES)) if (engine.errors[kind](e)) return true
  return false
}

/**
 * The database did not answer (as opposed to refusing a statement), or a lock conflict outlasted its
 * retries (db/transaction.ts): the API answers 503 with Retry-After, as the client's retry can succeed.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return anyEngine(error, 'unavailable') || anyEngine(error, 'conflict')
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
 * The database aborted the statement or its transaction to break a deadlock (or a lock wait, or a
 * serialization conflict, ran out): safe to run again. SQLite's busy answer is not retried here: the
 * driver (sqlite-driver.ts) has already waited for the lock up to the query bound, and another round
 * would outlast it.
 */
export function isRetryableConflict(error: unknown): boolean {
  return anyEngine(error, 'conflict')
}

/** In an upsert's update part, the value the conflicting new row carried for `column`. */
export function fromNewRow(db: Kysely<any>, column: string): RawBuilder<unknown> {
  return engineOf(db).newValue(column)
}

/** In an upsert's update part, the stored value of `table`'s `column`. */
export function storedValue(db: Kysely<any>, table: string, column: string): RawBuilder<unknown> {
  return engineOf(db).stored(table, column)
}

/** Rows per INSERT statement in `upsert`: well inside SQLite's bound-variable limit and MySQL's packet size. */
const UPSERT_CHUNK = 500

/**
 * INSERT the rows; where one hits an existing primary or unique key, UPDATE that row instead:
 * `update` columns take the new row's value, `set` columns an expression over the existing row, made
 * by `set(stored)` where `stored(column)` names the stored row's column (e.g. `${stored('version')} + 1`).
 * Rows naming one key twice must be merged by the caller first: PostgreSQL refuses to update one row
 * twice in a statement (21000).
 */
export async function upsert<TB extends keyof Database & string>(
  db: Db,
  table: TB,
  rows: Insertable<Database[TB]>[],
  options: {
    key: string[]
    update?: string[]
    set?: (stored: (column: string) => RawBuilder<unknown>) => Record<string, RawBuilder<unknown>>
  },
): Promise<void> {
  const anyDb = db as unknown as Kysely<any>
  const engine = engineOf(anyDb)
  const assignments = {
    ...Object.fromEntries((options.update ?? []).map((column) => [column, engine.newValue(column)])),
    ...options.set?.((column) => engine.stored(table, column)),
  }
  for (let start = 0; start < rows.length; start += UPSERT_CHUNK) {
    const insert = anyDb.insertInto(table as string).values(rows.slice(start, start + UPSERT_CHUNK) as any[])
    await engine.onConflictUpdate(insert, options.key, assignments).execute()
  }
}

/**
 * `SELECT … FOR UPDATE` where concurrent transactions run side by side and the row lock orders them
 * (MySQL, PostgreSQL). SQLite has no such clause and needs none: one connection per process runs one
 * transaction at a time, and the database file takes one writer at a time. A Galera cluster keeps row
 * locks on their node: the lock holds across nodes only where the transaction then writes the rows it
 * locked (the cluster certifies that write). A check over other rows (the last owner) takes a guard
 * row by writing it instead (`bumpChangeCounter`, `insertOrTouch`).
 */
export function forUpdate<QB extends { forUpdate(): QB }>(db: Kysely<any>, query: QB): QB {
  return engineOf(db).forUpdate(query)
}

/** INSERT that skips a row whose key exists, without an error. */
export function insertOrIgnore<QB extends InsertQueryBuilder<any, any, any>>(db: Kysely<any>, query: QB): QB {
  return engineOf(db).insertOrIgnore(query)
}

/**
 * An insert that, for a row whose key exists, adds the inserted value of `column` to the stored one
 * instead (counters kept in SQL: correct whatever the concurrency, in one statement).
 */
export function addOnConflict<QB extends InsertQueryBuilder<any, any, any>>(
  db: Kysely<any>,
  table: string,
  query: QB,
  keyColumns: string[],
  column: string,
): QB {
  const engine = engineOf(db)
  return engine.onConflictUpdate(query, keyColumns, {
    [column]: sql`${engine.stored(table, column)} + ${engine.newValue(column)}`,
  })
}

/**
 * Inserts the row, or when its key exists leaves the stored row as it is. Unlike INSERT IGNORE this
 * takes the row's write lock on MySQL either way (a duplicate under INSERT IGNORE takes only a shared
 * lock, and two transactions that then both want to write it deadlock); on PostgreSQL an ON CONFLICT
 * DO UPDATE locks the row too, where DO NOTHING would not. A Galera cluster does not replicate the
 * lock of a row left as it was: it orders writes of this row (which the cluster certifies), not checks
 * over other rows (`insertOrTouch`).
 */
export function insertOrLock<QB extends InsertQueryBuilder<any, any, any>>(
  db: Kysely<any>,
  table: string,
  query: QB,
  keyColumns: string[],
  column: string,
): QB {
  const engine = engineOf(db)
  return engine.onConflictUpdate(query, keyColumns, { [column]: engine.stored(table, column) })
}

/**
 * Inserts the row, or when its key exists moves its `column` (a number) on: to the inserted value
 * when that is greater, else by one. Unlike `insertOrLock`, the stored row always changes, which makes
 * the lock a write everywhere: a Galera cluster certifies only the rows a transaction changed (a row
 * lock, or an UPDATE that leaves a row as it was, stays on its node), so two transactions that take
 * this row on two nodes conflict, and the one that loses is run again (db/transaction.ts). For lock
 * rows that order checks over other rows (limits counted in SQL).
 */
export function insertOrTouch<QB extends InsertQueryBuilder<any, any, any>>(
  db: Kysely<any>,
  table: string,
  query: QB,
  keyColumns: string[],
  column: string,
): QB {
  const engine = engineOf(db)
  const stored = engine.stored(table, column)
  const inserted = engine.newValue(column)
  return engine.onConflictUpdate(query, keyColumns, {
    [column]: sql`case when ${stored} < ${inserted} then ${inserted} else ${stored} + 1 end`,
  })
}

/** Whether INSERT/UPDATE … RETURNING exists on the database's engine. */
export function supportsReturning(db: Kysely<any>): boolean {
  return engineOf(db).returning
}

/** A 64-bit integer expression as a signed number (MySQL's bit operators answer unsigned ones). */
export function signedInteger(db: Kysely<any>, expression: RawBuilder<unknown>): RawBuilder<number> {
  return engineOf(db).signed(expression)
}

/** Bits of the integer expression `a` kept by the constant `mask`. */
export function bitAnd(db: Kysely<any>, a: RawBuilder<unknown>, mask: number): RawBuilder<number> {
  return engineOf(db).bitAnd(a, mask)
}

/**
 * The slot a hot counter row is written in on this connection's server: on a Galera cluster each
 * node writes its own rows (which readers sum), so that writers on two nodes never change the same
 * row; 0 everywhere else (db/mysql-session.ts).
 */
export function countSlot(db: Kysely<any>): RawBuilder<number> {
  return engineOf(db).countSlot
}

/** `column` contains `text` as a plain substring, in any case (ASCII letters at least). */
export function containsText(db: Kysely<any>, column: string, text: string): RawBuilder<SqlBool> {
  return engineOf(db).containsText(column, text)
}

/** `column` contains `text` as a plain substring, case as it is. */
export function containsExact(db: Kysely<any>, column: string, text: string): RawBuilder<SqlBool> {
  return engineOf(db).containsExact(column, text)
}

/**
 * Whether the database's engine keeps stored routines (not SQLite): where it does not, the caller
 * does a routine's work itself.
 */
export function supportsRoutines(db: Kysely<any>): boolean {
  return engineOf(db).routines
}

/** A stored routine the statement called does not exist on the database. */
export function isMissingRoutine(error: unknown): boolean {
  return anyEngine(error, 'missingRoutine')
}

/** A call of the stored routine `name` with `args` that answers rows (only where `supportsRoutines`). */
export function routineCall(db: Kysely<any>, name: string, args: readonly unknown[]): RawBuilder<unknown> {
  return engineOf(db).callRoutine(name, args, schemaOf(db))
}
