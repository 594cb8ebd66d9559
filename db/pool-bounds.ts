import { AsyncLocalStorage } from 'node:async_hooks'
import type { QueryResult } from 'kysely'
import type { StatementTap } from './statements.js'

/**
 * What the pooled drivers (mysql-driver.ts, postgres-driver.ts) share: their error codes for a wait
 * that ran out, the pool's use for the metrics, and the one timer that bounds every wait.
 */

/** The error a request gets when no pool connection came free in time (mapped to 503 in db/dialect.ts). */
export const POOL_WAIT_TIMEOUT = 'POOL_WAIT_TIMEOUT'

/** The error of a statement the server did not answer in time (mapped to 503 in db/dialect.ts). */
export const QUERY_TIMEOUT = 'PROTOCOL_SEQUENCE_TIMEOUT'

/**
 * What the pool is doing now, for the metrics: connections handed out, and calls for one not yet
 * answered. A call is answered a moment later even when a connection is free (the pool answers on a
 * later tick, or after opening a new connection): only the calls beyond the free places wait in line.
 */
export interface PoolUsage {
  inUse: number
  asking: number
}

/** Callers in the pool's queue: the calls not yet answered beyond the places the pool has free. */
export function queuedCallers(usage: PoolUsage, size: number): number {
  return Math.max(0, usage.asking - Math.max(0, size - usage.inUse))
}

/** The bounds both pooled drivers take, so a slow server makes requests fail fast instead of queueing. */
export interface PooledDriverOptions {
  /** The bound on every wait on the server: for a pool connection, and for each statement. */
  timeoutMs: number
  usage: PoolUsage
  onWaitTimeout(): void
  /** Every statement the server refused or did not answer in time (for the metrics). */
  onQueryFailed(error: unknown): void
  /** Told of every statement sent (statements.ts). */
  tap?: StatementTap
}

interface Pending {
  due: number
  expire(): void
}

/**
 * The waits on the server (statements, and callers waiting for a pool connection), each with its
 * deadline, checked by one timer: mysql2's own per-query timeout sets and clears a timer for every
 * statement, which cost 3–4 µs of CPU each here (measured in a loop). An overdue wait fails at most
 * a twentieth of the bound late (and at most 250 ms late). Deadlines are read on the monotonic
 * clock: a wall clock set back would otherwise stretch them.
 */
export class Deadlines {
  private readonly pending = new Set<Pending>()
  private timer: NodeJS.Timeout | null = null
  private readonly every: number

  constructor(private readonly timeoutMs: number) {
    this.every = Math.min(250, Math.max(5, Math.floor(timeoutMs / 20)))
  }

  /** A wait due in the bound, or at `due` when that comes first (a statement that shares its bound: `ConnectionBound`). */
  start(expire: () => void, due = Infinity): Pending {
    const entry = { due: Math.min(performance.now() + this.timeoutMs, due), expire }
    this.pending.add(entry)
    if (this.timer === null) this.timer = setInterval(() => this.sweep(), this.every).unref()
    return entry
  }

  /** False when the statement had already expired (its caller has been answered). */
  finish(entry: Pending): boolean {
    return this.pending.delete(entry)
  }

  private sweep(): void {
    const now = performance.now()
    for (const entry of this.pending) {
      if (entry.due > now) continue
      this.pending.delete(entry)
      entry.expire()
    }
    if (this.pending.size === 0) this.stop()
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer)
    this.timer = null
  }
}

/** The deadline of the work `withinDeadline` runs (performance.now()), where it runs any. */
const workDeadline = new AsyncLocalStorage<number>()
/** Work under `withinDeadline` running now: the storage is on only while there is some. */
let underDeadline = 0

/**
 * Runs `work` with every wait it makes on the database (for a connection, for each statement) ending
 * by `due` (performance.now()) at the latest: a transaction retried after a deadlock
 * (db/transaction.ts) has what is left of its first attempt's bound, not a bound of its own. As with
 * the request transaction's storage, the storage is switched off once no such work runs (on Node 20
 * an AsyncLocalStorage that ran installs promise hooks that every await then pays for).
 */
export async function withinDeadline<T>(due: number, work: () => Promise<T>): Promise<T> {
  underDeadline++
  try {
    return await workDeadline.run(Math.min(due, workDeadline.getStore() ?? Infinity), work)
  } finally {
    if (--underDeadline === 0) workDeadline.disable()
  }
}

/**
 * Goes on with a request (`next`: a Fastify hook's `done`) with every wait on the database that it
 * then makes ending by `due` (performance.now()) at the latest, as `withinDeadline` does for a
 * promise. For a request whose first part (reading its session) was held: its handler has what is
 * left of the request's bound, not a bound of its own. Returns what ends it, to call once the request
 * has ended (more than once is harmless); the storage is switched off once nothing runs under it.
 */
export function continueWithinDeadline(due: number, next: () => void): () => void {
  underDeadline++
  let open = true
  workDeadline.run(Math.min(due, workDeadline.getStore() ?? Infinity), next)
  return () => {
    if (!open) return
    open = false
    if (--underDeadline === 0) workDeadline.disable()
  }
}

/**
 * One bound for a caller's wait for a connection and the statements it then runs on it: the time the
 * wait took is taken off the bound of each of them. A request that waited most of DB_QUERY_TIMEOUT_MS
 * for a connection (a pool held by statements a stalled server does not answer, a move to the next
 * host of DB_HOST) has only the rest of it for a statement that the server holds, not a second whole
 * bound. A request whose wait was short (as it is but under such trouble) keeps the whole bound for
 * each statement; what it does between two statements (its own work) is not counted.
 */
export class ConnectionBound {
  private left = Infinity

  /** A new checkout, whose wait began at `waitedFrom` (performance.now()), for work that ends by `due`. */
  checkedOut(waitedFrom: number, timeoutMs: number, due: number): void {
    const now = performance.now()
    this.left = Math.min(timeoutMs - (now - waitedFrom), due - now)
  }

  /**
   * The deadline of a statement sent now, or null when the wait spent the whole bound: the statement
   * is not sent, and its caller answers 503.
   */
  due(): number | null {
    return this.left > 0 ? performance.now() + this.left : null
  }
}

/**
 * The error of a statement not sent because the wait for its connection spent the whole bound
 * (`ConnectionBound`): a wait that ran out, answered 503 like one (db/dialect.ts).
 */
export function boundSpent(timeoutMs: number): Error {
  const message = `No time was left of the ${timeoutMs} ms bound once a database connection came free`
  return Object.assign(new Error(message), { code: POOL_WAIT_TIMEOUT })
}

/**
 * A pool connection within `options.timeoutMs`: `connect` asks the pool and calls back with the raw
 * connection (and how to give it back unused), `wrap` makes it the driver's connection (`waitedFrom`:
 * when the wait began, and `due`, `withinDeadline`'s deadline, for `ConnectionBound`). A caller that
 * gave up has the connection handed straight back, for the next one waiting (no pool has a bound on
 * its queue of its own).
 */
export function boundedAcquire<Raw, C>(
  deadlines: Deadlines,
  options: PooledDriverOptions,
  connect: (answer: (error: unknown, raw: Raw | undefined, giveBack: () => void) => void) => void,
  wrap: (raw: Raw, waitedFrom: number, due: number) => C,
): Promise<C> {
  const { usage, timeoutMs } = options
  const waitedFrom = performance.now()
  const due = workDeadline.getStore() ?? Infinity
  return new Promise((resolve, reject) => {
    usage.asking++
    const pending = deadlines.start(() => {
      usage.asking--
      options.onWaitTimeout()
      const message = `No database connection came free within ${timeoutMs} ms`
      reject(Object.assign(new Error(message), { code: POOL_WAIT_TIMEOUT }))
    }, due)
    connect((error, raw, giveBack) => {
      if (!deadlines.finish(pending)) return raw === undefined ? undefined : giveBack()
      usage.asking--
      if (error || raw === undefined) return reject(error ?? new Error('no database connection'))
      usage.inUse++
      resolve(wrap(raw, waitedFrom, due))
    })
  })
}

/** One statement on a connection of its own, given back when it has run. */
export async function runAlone<R>(
  acquire: () => Promise<{
    run<T>(sqlText: string, parameters: readonly unknown[], prepare?: boolean): Promise<QueryResult<T>>
    release(): void
  }>,
  sqlText: string,
  parameters: readonly unknown[],
  prepare: boolean,
): Promise<QueryResult<R>> {
  const connection = await acquire()
  try {
    return await connection.run<R>(sqlText, parameters, prepare)
  } finally {
    connection.release()
  }
}
