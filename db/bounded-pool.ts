import type { Pool, PoolConnection } from 'mysql2'
import type { MysqlPool, MysqlPoolConnection, MysqlQueryResult } from 'kysely'

/** The error a request gets when no pool connection came free in time (mapped to 503 in db/dialect.ts). */
export const POOL_WAIT_TIMEOUT = 'POOL_WAIT_TIMEOUT'

/** What the pool is doing now, for the metrics: connections handed out, and callers waiting for one. */
export interface PoolUsage {
  inUse: number
  waiting: number
}

/**
 * mysql2's pool for Kysely, with every wait on the server bounded by `timeoutMs`: the wait for a pool
 * connection (mysql2 has no bound on its queue) and each query (mysql2's own per-query `timeout`).
 *
 * A query that timed out is still running on its connection as far as mysql2 knows: the next command
 * would queue behind it, and its timer starts only when it reaches the front, so it would wait for
 * ever. That connection is destroyed rather than given back; the pool opens a fresh one when the
 * server answers again (the server rolls back whatever the dropped session had open).
 */
export function boundedPool(
  pool: Pool,
  timeoutMs: number,
  usage: PoolUsage = { inUse: 0, waiting: 0 },
  onWaitTimeout: () => void = () => {},
): MysqlPool {
  const wrapped = new WeakMap<PoolConnection, MysqlPoolConnection>()
  const wrap = (raw: PoolConnection): MysqlPoolConnection => {
    let connection = wrapped.get(raw)
    if (!connection) {
      connection = {
        query: ((sql: string, parameters: unknown[], callback?: (error: unknown, result: MysqlQueryResult) => void) => {
          if (!callback) return raw.query({ sql, values: parameters, timeout: timeoutMs })
          raw.query({ sql, values: parameters, timeout: timeoutMs }, (error: unknown, result: unknown) => {
            if ((error as { code?: string } | null)?.code === 'PROTOCOL_SEQUENCE_TIMEOUT') raw.destroy()
            callback(error, result as MysqlQueryResult)
          })
        }) as MysqlPoolConnection['query'],
        release: () => {
          usage.inUse--
          raw.release()
        },
      }
      wrapped.set(raw, connection)
    }
    return connection
  }

  return {
    getConnection(callback) {
      let waiting = true
      usage.waiting++
      const timer = setTimeout(() => {
        waiting = false
        usage.waiting--
        onWaitTimeout()
        const error = Object.assign(new Error(`No database connection came free within ${timeoutMs} ms`), {
          code: POOL_WAIT_TIMEOUT,
        })
        callback(error, undefined as never)
      }, timeoutMs)
      pool.getConnection((error, raw) => {
        clearTimeout(timer)
        // The caller gave up: hand the connection straight back for the next one waiting.
        if (!waiting) return raw?.release()
        waiting = false
        usage.waiting--
        if (!error) usage.inUse++
        callback(error, error ? (undefined as never) : wrap(raw))
      })
    },
    // Ending the pool while the server does not answer reports the connections that could not say
    // goodbye (a handshake that timed out): they are gone either way, and shutdown must go on.
    end: (callback) => pool.end(() => callback(null)),
  }
}
