import type { DatabaseConnection, Driver, QueryResult } from 'kysely'
import { hostTrouble } from './mysql-hosts.js'
import type { MysqlConnection, OutpostMysqlDriver } from './mysql-driver.js'
import { POOL_WAIT_TIMEOUT } from './pool-bounds.js'
import type { PooledDirect } from './prepared.js'

/**
 * The driver of a read host (DB_READ_HOST, read-hosts.ts): the host's own pool, and the writer when
 * the host fails under a read. A read is safe to run twice, so one that found its host down (its
 * connection refused or lost, no answer within the bound, no connection free) is run again on the
 * writer at once and the host is reported (`trouble`), which sends the next reads to the writer until
 * the probe finds the host back: a replica that dies between two probes costs its requests a retry,
 * never an error. A read handle takes no transaction: what must be read together with writes, or
 * consistently with itself, is read on the writer.
 */

/** What a read host falls back to, and whom it tells that it did. */
export interface ReadFallback {
  /** The writer's driver: one statement on a connection of its own. */
  writer: PooledDirect
  /** The read host failed under a read (read-hosts.ts sends reads to the writer until it is back). */
  trouble(error: unknown): void
}

/** A failure that says the host is down or swamped, not that the statement was wrong: retried on the writer. */
function readTrouble(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code
  return hostTrouble(error) || code === POOL_WAIT_TIMEOUT || code === 'ECONNREFUSED' || code === 'ETIMEDOUT'
}

/** Runs `read` on the read host, and on the writer when the host is in trouble. */
async function orOnWriter<R>(
  fallback: ReadFallback,
  read: () => Promise<QueryResult<R>>,
  sqlText: string,
  parameters: readonly unknown[],
  prepare = false,
): Promise<QueryResult<R>> {
  try {
    return await read()
  } catch (error) {
    if (!readTrouble(error)) throw error
    fallback.trouble(error)
    return fallback.writer.runAlone<R>(sqlText, parameters, prepare)
  }
}

/** A connection of the read host (or none, when the host gave none): each statement falls back alone. */
class ReadConnection implements DatabaseConnection {
  constructor(
    readonly inner: MysqlConnection | null,
    private readonly fallback: ReadFallback,
  ) {}

  executeQuery<R>(compiled: { sql: string; parameters: readonly unknown[] }): Promise<QueryResult<R>> {
    const { inner } = this
    const read = inner
      ? () => inner.run<R>(compiled.sql, compiled.parameters)
      : () => Promise.reject(Object.assign(new Error('no connection to the read host'), { fatal: true }))
    return orOnWriter(this.fallback, read, compiled.sql, compiled.parameters)
  }

  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not used with MySQL here')
  }
}

const noTransaction = () =>
  Promise.reject(new Error('a read handle (db/read-hosts.ts) takes no transaction: read on the writer, request.db'))

/** Kysely's driver over a read host's pool, with the writer as its fallback (module comment). */
export class ReadDriver implements Driver {
  constructor(
    private readonly host: OutpostMysqlDriver,
    private readonly fallback: ReadFallback,
  ) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<ReadConnection> {
    try {
      return new ReadConnection(await this.host.acquireConnection(), this.fallback)
    } catch (error) {
      if (!readTrouble(error)) throw error
      this.fallback.trouble(error)
      return new ReadConnection(null, this.fallback)
    }
  }

  /**
   * A statement on the read host alone, never run again on the writer: the probe's (read-hosts.ts),
   * which must see the host itself, or it would measure the writer's heartbeat and take a dead host back.
   */
  runOnHost<R>(sqlText: string, parameters: readonly unknown[]): Promise<QueryResult<R>> {
    return this.host.runAlone<R>(sqlText, parameters, false)
  }

  /** The direct path of prepared.ts, with the same fallback. */
  runAlone<R>(sqlText: string, parameters: readonly unknown[], prepare = false): Promise<QueryResult<R>> {
    return orOnWriter(
      this.fallback,
      () => this.host.runAlone<R>(sqlText, parameters, prepare),
      sqlText,
      parameters,
      prepare,
    )
  }

  beginTransaction = noTransaction
  commitTransaction = noTransaction
  rollbackTransaction = noTransaction

  async releaseConnection(connection: ReadConnection): Promise<void> {
    connection.inner?.release()
  }

  destroy(): Promise<void> {
    return this.host.destroy()
  }
}
