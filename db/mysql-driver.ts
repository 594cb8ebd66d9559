import type { PoolConnection } from 'mysql2'
import type { DatabaseConnection, Driver, QueryResult, TransactionSettings } from 'kysely'
import {
  boundedAcquire,
  boundSpent,
  ConnectionBound,
  Deadlines,
  QUERY_TIMEOUT,
  runAlone,
  type PooledDriverOptions,
} from './pool-bounds.js'

interface OkPacket {
  insertId?: number | string | null
  affectedRows?: number | null
  changedRows?: number | null
}

/**
 * What the driver asks of its pool: mysql2's `getConnection` and `end`, as the hosts of DB_HOST give
 * them (mysql-hosts.ts), and word of each statement that failed, which may mean its host is down.
 */
export interface MysqlPool {
  getConnection(callback: (error: NodeJS.ErrnoException | null, connection: PoolConnection) => void): void
  end(callback: (error?: unknown) => void): void
  statementFailed(connection: PoolConnection, error: unknown): void
}

/**
 * What Kysely expects of a mysql2 answer. A CALL answers its procedure's result sets and then a
 * status: the first result set is the rows.
 */
function toQueryResult<R>(result: unknown): QueryResult<R> {
  if (Array.isArray(result)) return { rows: (Array.isArray(result[0]) ? result[0] : result) as R[] }
  const ok = result as OkPacket | null
  if (ok && typeof ok === 'object' && 'affectedRows' in ok) {
    const { insertId, affectedRows, changedRows } = ok
    return {
      insertId: insertId === undefined || insertId === null || String(insertId) === '0' ? undefined : BigInt(insertId),
      numAffectedRows: affectedRows === undefined || affectedRows === null ? undefined : BigInt(affectedRows),
      numChangedRows: changedRows === undefined || changedRows === null ? undefined : BigInt(changedRows),
      rows: [],
    }
  }
  return { rows: [] }
}

/**
 * One pooled mysql2 connection. `run` is what Kysely's own MySQL connection does, minus its layers:
 * the prepared queries of db/prepared.ts call it directly (a statement costs about 37 µs of CPU in
 * mysql2 and 46 µs through Kysely's executor, measured here in a loop), and Kysely calls it through
 * `executeQuery`.
 *
 * A statement that timed out is still running on its connection as far as mysql2 knows: the next
 * command would queue behind it and wait for ever. That connection is destroyed rather than given
 * back; the pool opens a fresh one when the server answers again (the server rolls back whatever the
 * dropped session had open).
 */
export class MysqlConnection implements DatabaseConnection {
  /** Closed under a statement (timed out, or the link failed): the server has rolled back its transaction. */
  lost = false
  /** The bound the wait for this checkout shares with its statements. */
  readonly bound = new ConnectionBound()

  constructor(
    private readonly raw: PoolConnection,
    private readonly options: PooledDriverOptions,
    private readonly deadlines: Deadlines,
    private readonly pool: MysqlPool,
  ) {}

  /**
   * One statement. `prepare`: as a server-side prepared statement (mysql2's `execute`, binary
   * protocol), kept per connection in mysql2's bounded cache (`maxPreparedStatements`), so the server
   * parses and plans it once per connection instead of on every call: for the fixed shapes of
   * db/prepared.ts. Everything else goes as text (`query`): one-off shapes would only fill the cache.
   */
  run<R>(sqlText: string, parameters: readonly unknown[], prepare = false): Promise<QueryResult<R>> {
    const due = this.bound.due()
    if (due === null) {
      this.options.onWaitTimeout()
      return Promise.reject(boundSpent(this.options.timeoutMs))
    }
    const tap = this.options.tap
    if (tap) {
      tap.sent++
      tap.listener?.(sqlText)
    }
    return new Promise((resolve, reject) => {
      const fail = (error: unknown) => {
        if ((error as { fatal?: boolean }).fatal === true) this.lost = true
        this.options.onQueryFailed(error)
        this.pool.statementFailed(this.raw, error)
        reject(error)
      }
      const pending = this.deadlines.start(() => {
        this.lost = true
        this.raw.destroy()
        const message = `The database did not answer within ${this.options.timeoutMs} ms (the wait for a connection included)`
        fail(Object.assign(new Error(message), { code: QUERY_TIMEOUT }))
      }, due)
      const done = (error: unknown, result: unknown) => {
        if (!this.deadlines.finish(pending)) return
        if (error) fail(error)
        else resolve(toQueryResult<R>(result))
      }
      // The binary protocol refuses undefined; as text it was NULL.
      if (prepare) this.raw.execute({ sql: sqlText, values: parameters.map((v) => (v === undefined ? null : v)) }, done)
      else this.raw.query({ sql: sqlText, values: parameters as unknown[] }, done)
    })
  }

  executeQuery<R>(compiled: { sql: string; parameters: readonly unknown[] }): Promise<QueryResult<R>> {
    return this.run<R>(compiled.sql, compiled.parameters)
  }

  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not used with MySQL here')
  }

  release(): void {
    this.options.usage.inUse--
    this.raw.release()
  }
}

/**
 * mysql2's pool behind Kysely, with every wait on the server bounded by `timeoutMs`: the wait for a
 * pool connection (mysql2 has no bound on its queue) and each statement (`Deadlines`).
 */
export class OutpostMysqlDriver implements Driver {
  private readonly connections = new WeakMap<PoolConnection, MysqlConnection>()
  private readonly deadlines: Deadlines
  private ended: Promise<void> | null = null

  constructor(
    private readonly pool: MysqlPool,
    private readonly options: PooledDriverOptions,
  ) {
    this.deadlines = new Deadlines(options.timeoutMs)
  }

  async init(): Promise<void> {}

  acquireConnection(): Promise<MysqlConnection> {
    return boundedAcquire<PoolConnection, MysqlConnection>(
      this.deadlines,
      this.options,
      (answer) => this.pool.getConnection((error, raw) => answer(error, raw ?? undefined, () => raw.release())),
      (raw, waitedFrom, due) => {
        let connection = this.connections.get(raw)
        if (!connection) {
          connection = new MysqlConnection(raw, this.options, this.deadlines, this.pool)
          this.connections.set(raw, connection)
        }
        connection.bound.checkedOut(waitedFrom, this.options.timeoutMs, due)
        return connection
      },
    )
  }

  /** One statement on a connection of its own, given back when it has run. */
  runAlone<R>(sqlText: string, parameters: readonly unknown[], prepare = false): Promise<QueryResult<R>> {
    return runAlone<R>(() => this.acquireConnection(), sqlText, parameters, prepare)
  }

  async beginTransaction(connection: MysqlConnection, settings: TransactionSettings): Promise<void> {
    if (settings.isolationLevel || settings.accessMode) {
      const parts = [settings.isolationLevel && `isolation level ${settings.isolationLevel}`, settings.accessMode]
      // On MySQL this sets the isolation level of the next transaction.
      await connection.run(`set transaction ${parts.filter(Boolean).join(', ')}`, [])
    }
    await connection.run('begin', [])
  }

  async commitTransaction(connection: MysqlConnection): Promise<void> {
    await connection.run('commit', [])
  }

  async rollbackTransaction(connection: MysqlConnection): Promise<void> {
    // Kysely would report the failed ROLLBACK of a closed connection instead of what ended the
    // transaction (a timeout answers 503; "connection is in closed state" would answer 500).
    if (connection.lost) return
    await connection.run('rollback', [])
  }

  async releaseConnection(connection: MysqlConnection): Promise<void> {
    connection.release()
  }

  // Called by Kysely and by MysqlDb (db/index.ts): the pool is ended once.
  // Ending the pool while the server does not answer reports the connections that could not say
  // goodbye (a handshake that timed out): they are gone either way, and shutdown must go on.
  destroy(): Promise<void> {
    this.deadlines.stop()
    return (this.ended ??= new Promise((resolve) => this.pool.end(() => resolve())))
  }
}
