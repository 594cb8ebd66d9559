import type SQLite from 'better-sqlite3'
import type { CompiledQuery, DatabaseConnection, Driver, QueryResult } from 'kysely'

/**
 * better-sqlite3 behind Kysely, for several processes on one database file (WORKERS > 1, a backup,
 * the operator CLI beside the server).
 *
 * better-sqlite3 is synchronous: while a statement waits for another process's write lock inside
 * SQLite's busy handler, the whole event loop waits with it, up to busy_timeout. So SQLite's own wait
 * is kept to SYNC_BUSY_WAIT_MS, and a statement still refused (SQLITE_BUSY) is tried again after an
 * asynchronous pause, until the caller's bound (DB_QUERY_TIMEOUT_MS, at most 5 s) runs out: the
 * event loop serves other requests meanwhile.
 *
 * Transactions begin with BEGIN IMMEDIATE, which takes the write lock at the start (waited for as
 * above). A deferred BEGIN would take it at the first write, and in WAL mode a transaction that has
 * read and then finds that another process wrote meanwhile is refused at once (SQLITE_BUSY_SNAPSHOT),
 * with no wait that could help: its snapshot is stale. Holding the lock from the start, a
 * transaction's statements are never refused for a lock. It also orders writers on the lock, which
 * is what SQLite does anyway: one writer at a time.
 */

/** SQLite's own (synchronous, loop-blocking) wait for a lock, per attempt. */
export const SYNC_BUSY_WAIT_MS = 2
/** Pauses between attempts: from the first to the largest, doubling. */
const FIRST_PAUSE_MS = 1
const LARGEST_PAUSE_MS = 16

/** SQLITE_BUSY and its extended codes (_RECOVERY, _SNAPSHOT, _TIMEOUT). */
export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY')
}

/**
 * Runs `attempt` now; when SQLite answers busy, again after growing pauses until `waitMs` has passed,
 * then the last error is thrown. Synchronous when the first attempt succeeds (the hot path pays for
 * no promise).
 */
export function whenNotBusy<T>(attempt: () => T, waitMs: number): T | Promise<T> {
  try {
    return attempt()
  } catch (error) {
    if (!isBusy(error)) throw error
    return retry(attempt, Date.now() + waitMs, error)
  }
}

async function retry<T>(attempt: () => T, deadline: number, firstError: unknown): Promise<T> {
  let pause = FIRST_PAUSE_MS
  let last = firstError
  while (Date.now() + pause <= deadline) {
    await new Promise((resolve) => setTimeout(resolve, pause))
    try {
      return attempt()
    } catch (error) {
      if (!isBusy(error)) throw error
      last = error
    }
    pause = Math.min(LARGEST_PAUSE_MS, pause * 2)
  }
  throw last
}

/** What the driver needs of the database: statements (cached by the caller) and the transaction state. */
export interface SqliteHandle {
  prepare(sqlText: string): SQLite.Statement
  readonly inTransaction: boolean
  close(): void
}

/** One statement, run to completion: rows for a reader, the change count for a writer. */
export function runStatement(handle: SqliteHandle, sqlText: string, parameters: readonly unknown[]): QueryResult<any> {
  const statement = handle.prepare(sqlText)
  if (statement.reader) return { rows: readRows(statement, parameters) }
  if (SCHEMA_CHANGE.test(sqlText)) rowBuilders = new WeakMap()
  const { changes, lastInsertRowid } = statement.run(parameters)
  return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) }
}

/**
 * Rows as objects, built from better-sqlite3's raw rows (arrays) by a function made once per
 * statement for its columns. better-sqlite3's own objects cost more: it makes every row's keys anew
 * from the column names (a UTF-8 decode and a string-table look-up each) and adds them one by one,
 * each addition a change of the object's shape. Measured on 21 rows of 4 columns: 15.5 µs against
 * 9.5 µs; on one row 1.27 against 1.02 µs. The same keys in the same order, the last of two equal
 * names winning as before.
 */
type RowBuilder = { width: number; build: (raw: unknown[]) => Record<string, unknown> }
let rowBuilders = new WeakMap<SQLite.Statement, RowBuilder>()
/** Statements that change the schema: a cached statement then reads other columns (SQLite re-prepares it). */
const SCHEMA_CHANGE = /^\s*(create|alter|drop)\b/i

function rowBuilder(statement: SQLite.Statement): RowBuilder {
  const names = statement.columns().map((column) => column.name)
  // Column names come from SQLite (the columns and aliases of our own queries), quoted as JSON strings.
  // A column named `__proto__` is left out, as better-sqlite3 does: as a key it would set the prototype.
  const fields = names.flatMap((name, i) => (name === '__proto__' ? [] : [`${JSON.stringify(name)}: raw[${i}]`]))
  return { width: names.length, build: new Function('raw', `return { ${fields.join(', ')} }`) as RowBuilder['build'] }
}

function readRows(statement: SQLite.Statement, parameters: readonly unknown[]): unknown[] {
  let builder = rowBuilders.get(statement)
  if (builder === undefined) statement.raw(true)
  const raw = statement.all(parameters) as unknown[][]
  // The builder is made from the columns once the statement has run: SQLite re-prepares a cached
  // statement whose schema changed when it runs, and only then names its new columns. Another
  // process's migration does not reset the builders; rows of another width make it again.
  if (builder === undefined || (raw.length > 0 && raw[0]!.length !== builder.width)) {
    builder = rowBuilder(statement)
    rowBuilders.set(statement, builder)
  }
  const rows = new Array<unknown>(raw.length)
  for (let i = 0; i < raw.length; i++) rows[i] = builder.build(raw[i]!)
  return rows
}

class Connection implements DatabaseConnection {
  constructor(
    private readonly handle: SqliteHandle,
    private readonly waitMs: number,
  ) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    // Inside a transaction the write lock is already held (BEGIN IMMEDIATE): a busy answer there is
    // not a lock to wait for, and repeating one statement of a transaction is not safe in general.
    if (this.handle.inTransaction) return runStatement(this.handle, compiled.sql, compiled.parameters)
    return whenNotBusy(() => runStatement(this.handle, compiled.sql, compiled.parameters), this.waitMs)
  }

  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not used with SQLite here')
  }
}

/** One connection, lent to one caller at a time (a transaction holds it until it ends). */
export class OutpostSqliteDriver implements Driver {
  private readonly connection: Connection
  private held: Promise<void> | null = null
  private release: (() => void) | null = null

  constructor(
    private readonly handle: SqliteHandle,
    private readonly waitMs: number,
  ) {
    this.connection = new Connection(handle, waitMs)
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    while (this.held) await this.held
    this.held = new Promise((resolve) => (this.release = resolve))
    return this.connection
  }

  async releaseConnection(): Promise<void> {
    const release = this.release
    this.held = null
    this.release = null
    release?.()
  }

  async beginTransaction(): Promise<void> {
    await whenNotBusy(() => runStatement(this.handle, 'begin immediate', []), this.waitMs)
  }

  async commitTransaction(): Promise<void> {
    // A commit can be refused busy (a checkpoint in another process); the transaction then stays
    // open and the commit can be tried again.
    await whenNotBusy(() => runStatement(this.handle, 'commit', []), this.waitMs)
  }

  async rollbackTransaction(): Promise<void> {
    runStatement(this.handle, 'rollback', [])
  }

  async destroy(): Promise<void> {
    this.handle.close()
  }
}
