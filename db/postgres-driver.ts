import pg from 'pg'
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

/** The same bounds, counters and tap as the MySQL driver's. */
export type PostgresDriverOptions = PooledDriverOptions

/**
 * 64-bit integers (`bigint` columns, `count(*)`) and `numeric` (`sum` of bigints) as numbers:
 * node-postgres answers them as strings, as it cannot know they fit. Outpost's scores, balances and
 * timestamps stay within 2^53 − 1 (contract §5), so every such value is exact as a number; one that
 * is not is refused rather than rounded.
 */
function exactNumber(text: string): number {
  const value = Number(text)
  if (!Number.isSafeInteger(value) && !(Number.isFinite(value) && text.includes('.'))) {
    throw new Error(`the database answered ${text}, past the exact range of a number`)
  }
  return value
}

const INT8 = 20
const NUMERIC = 1700

/** Big integers and numerics parsed to numbers, as the other engines' drivers return them, so services see one type. */
export const postgresTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    (oid === INT8 || oid === NUMERIC) && format !== 'binary'
      ? exactNumber
      : pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
}

/**
 * One pooled node-postgres client. `run` is what Kysely's own PostgreSQL connection does, minus its
 * layers: the prepared queries of db/prepared.ts call it directly, and Kysely calls it through
 * `executeQuery`. A statement that timed out may still hold its client's socket: the client is
 * destroyed rather than given back, and the server (which also bounds it with statement_timeout)
 * rolls back what it had open.
 */
export class PostgresConnection implements DatabaseConnection {
  lost = false
  /** The bound the wait for this checkout shares with its statements. */
  readonly bound = new ConnectionBound()
  /** The client was handed back to node-postgres to be destroyed: it must not be released again. */
  private destroyed = false

  constructor(
    private readonly client: pg.PoolClient,
    private readonly options: PostgresDriverOptions,
    private readonly deadlines: Deadlines,
    private readonly names: Map<string, string>,
  ) {}

  /**
   * One statement. `prepare`: as a named prepared statement, which node-postgres parses once per
   * connection and then only binds: for the fixed shapes of db/prepared.ts. Everything else goes
   * unnamed, parsed each time, as one-off shapes would only fill the server's memory.
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
    let name: string | undefined
    if (prepare) {
      name = this.names.get(sqlText)
      if (!name) this.names.set(sqlText, (name = `outpost_${this.names.size + 1}`))
    }
    return new Promise((resolve, reject) => {
      const fail = (error: unknown) => {
        this.options.onQueryFailed(error)
        reject(error)
      }
      const pending = this.deadlines.start(() => {
        this.lost = true
        const message = `The database did not answer within ${this.options.timeoutMs} ms (the wait for a connection included)`
        const error = Object.assign(new Error(message), { code: QUERY_TIMEOUT })
        this.destroy(error)
        fail(error)
      }, due)
      this.client.query({ text: sqlText, values: parameters as unknown[], name }).then(
        (result) => {
          if (!this.deadlines.finish(pending)) return
          const command = result.command
          const writes = command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE'
          resolve({
            rows: (result.rows ?? []) as R[],
            numAffectedRows: writes ? BigInt(result.rowCount ?? 0) : undefined,
          })
        },
        (error: unknown) => {
          if (!this.deadlines.finish(pending)) return
          // A failure of the link itself (no SQLSTATE) leaves the client unusable.
          if (!(error as { code?: string }).code || (error as { code: string }).code.startsWith('08')) this.lost = true
          fail(error)
        },
      )
    })
  }

  executeQuery<R>(compiled: { sql: string; parameters: readonly unknown[] }): Promise<QueryResult<R>> {
    return this.run<R>(compiled.sql, compiled.parameters)
  }

  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not used with PostgreSQL here')
  }

  release(): void {
    this.options.usage.inUse--
    // A lost client is destroyed, not given back: kept out of the pool, it would also hold the pool's
    // end (which waits for every client) for ever.
    if (this.lost) this.destroy(true)
    else this.client.release()
  }

  private destroy(reason: Error | true): void {
    if (this.destroyed) return
    this.destroyed = true
    this.client.release(reason)
  }
}

/**
 * node-postgres's pool behind Kysely, with every wait on the server bounded by `timeoutMs` (the wait
 * for a pool connection and each statement), as the MySQL driver does.
 */
export class OutpostPostgresDriver implements Driver {
  private readonly connections = new WeakMap<pg.PoolClient, PostgresConnection>()
  private readonly deadlines: Deadlines
  private ended: Promise<void> | null = null

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: PostgresDriverOptions,
  ) {
    this.deadlines = new Deadlines(options.timeoutMs)
    // An idle client whose server went away reports it here; unhandled, it would end the process.
    pool.on('error', () => {})
  }

  async init(): Promise<void> {}

  acquireConnection(): Promise<PostgresConnection> {
    return boundedAcquire<pg.PoolClient, PostgresConnection>(
      this.deadlines,
      this.options,
      (answer) => this.pool.connect((error, client, done) => answer(error, client, () => done())),
      (client, waitedFrom, due) => {
        let connection = this.connections.get(client)
        if (!connection) {
          connection = new PostgresConnection(client, this.options, this.deadlines, new Map())
          this.connections.set(client, connection)
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

  async beginTransaction(connection: PostgresConnection, settings: TransactionSettings): Promise<void> {
    const parts = [settings.isolationLevel && `isolation level ${settings.isolationLevel}`, settings.accessMode]
    await connection.run(['begin', ...parts.filter(Boolean)].join(' '), [])
  }

  async commitTransaction(connection: PostgresConnection): Promise<void> {
    await connection.run('commit', [])
  }

  async rollbackTransaction(connection: PostgresConnection): Promise<void> {
    // What ended the transaction is the error to report, not the failed ROLLBACK of a closed client.
    if (connection.lost) return
    await connection.run('rollback', [])
  }

  async savepoint(connection: PostgresConnection, name: string): Promise<void> {
    await connection.run(`savepoint ${name}`, [])
  }

  async rollbackToSavepoint(connection: PostgresConnection, name: string): Promise<void> {
    await connection.run(`rollback to savepoint ${name}`, [])
  }

  async releaseSavepoint(connection: PostgresConnection, name: string): Promise<void> {
    await connection.run(`release savepoint ${name}`, [])
  }

  async releaseConnection(connection: PostgresConnection): Promise<void> {
    connection.release()
  }

  destroy(): Promise<void> {
    this.deadlines.stop()
    return (this.ended ??= this.pool.end().catch(() => {}))
  }
}
