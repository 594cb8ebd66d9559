import { createConnection, type ConnectionOptions, type Pool, type PoolConnection } from 'mysql2'
import type { HostState } from './config.js'
import { hostLabel, type DbHost } from './hosts.js'
import type { MysqlPool } from './mysql-driver.js'
import { QUERY_TIMEOUT } from './pool-bounds.js'

/**
 * The hosts of DB_HOST on MySQL/MariaDB (docs/deployment.md, "A list of database hosts"): one mysql2
 * pool at a time, to the host written to now; when that host stops answering, the next one of the list
 * that answers takes its place.
 *
 * Why a policy of our own, not mysql2's PoolCluster: PoolCluster counts only failed connects (five by
 * default, each a request's wait) and never a failed statement, so a host that hangs with its idle
 * connections open, or a Galera node that left the cluster's primary component (it accepts connections
 * and refuses every query, errno 1047), is never left; a host it set aside comes back on a timer,
 * unprobed, and with the ORDER selector is written to again at once, beside the host that replaced
 * it; its events name the host left, not the one taken; and the pool it leaves keeps its idle
 * connections. Here:
 * - a sign of trouble on the host in use (a connect that fails, a connection lost, a statement past
 *   DB_QUERY_TIMEOUT_MS, a node not ready) starts one check: that host is probed (a connection of its
 *   own and `SHOW`, bounded by `probeMs`); when it answers, nothing moves. Otherwise the other hosts
 *   are probed at once and the first of them in the list's order (after the host in use, wrapping
 *   around) that answers is taken, so that every instance moving off a host moves to the same one;
 * - the host left has its pool ended: its idle connections closed, each busy one closed once its
 *   statement ends (a transaction there fails at its next statement, 503, and its retry lands on
 *   the new host), and every socket still open `graceMs` later destroyed. One writer at a time, as a
 *   Galera cluster writes best (no certification conflicts between two nodes);
 * - a call for a connection that failed on the host left is asked again of the new one (no statement
 *   has run); statements that failed are not retried (a write may have happened);
 * - no moving back: the host taken stays until it fails in turn (a node that just rejoined may still
 *   be catching up, and every move is a moment with two writers);
 * - nothing waits on a check past its bound: the callers' own bounds (db/pool-bounds.ts) answer them.
 */

/** A move to another host, for the log (DbObserver.hostChanged). */
export interface HostChange {
  from: string
  to: string
  /** Why the host left was judged down: its probe's error. */
  reason: string
}

/** What the list tells its owner: the log lines of db/config.ts's DbObserver. */
export interface HostEvents {
  changed?(change: HostChange): void
  noneAnswers?(problem: { hosts: readonly string[]; reason: string }): void
}

/** How a list of hosts opens a pool, probes a host and leaves one (open-mysql.ts fills it in). */
export interface MysqlHostsOptions {
  hosts: readonly DbHost[]
  /** A new pool of connections to `host` (open-mysql.ts). */
  open(host: DbHost): Pool
  /** Resolves when `host` answers and takes writes, rejects with why not, within its bound. */
  probe(host: DbHost): Promise<void>
  /** How long the connections of a host left may finish their statement before their sockets are destroyed. */
  graceMs: number
  events?: HostEvents
}

type Callback = (error: NodeJS.ErrnoException | null, connection: PoolConnection) => void

/** Galera: "WSREP has not yet prepared node for application use" (a node outside the primary component). */
const WSREP_NOT_READY = 1047
const SERVER_SHUTDOWN = 1053
/** The shortest time between the ends of two checks. */
const CHECK_SPACING_MS = 200

/** A statement's failure that may mean its host is down, not that the statement was wrong. */
export function hostTrouble(error: unknown): boolean {
  const { fatal, code, errno } = error as { fatal?: boolean; code?: string; errno?: number }
  return fatal === true || code === QUERY_TIMEOUT || errno === WSREP_NOT_READY || errno === SERVER_SHUTDOWN
}

const reasonOf = (error: unknown) => String((error as Error | null)?.message ?? error)

/** The sockets of a connection (mysql2 types its stream loosely). */
const socketOf = (connection: PoolConnection) =>
  (connection as { stream?: NodeJS.ReadableStream & { destroy(): void } }).stream

/** mysql2's pools over the hosts of DB_HOST, one written to at a time: the pool the driver (mysql-driver.ts) asks. */
export class MysqlHosts implements MysqlPool, HostState {
  readonly hosts: readonly string[]
  current = 0
  failovers = 0
  private pool: Pool
  /** The pool each connection came from: a failure on a host already left starts no check. */
  private readonly owners = new WeakMap<PoolConnection, Pool>()
  private readonly connections = new WeakMap<Pool, Set<PoolConnection>>()
  /** Hosts left, until their sockets are destroyed. */
  private readonly retiring = new Map<Pool, NodeJS.Timeout>()
  private checking: Promise<void> | null = null
  private checkedAt = -Infinity
  /** The last check found no host answering (said once until one answers). */
  private down = false
  private closed = false

  constructor(private readonly options: MysqlHostsOptions) {
    this.hosts = options.hosts.map(hostLabel)
    this.pool = this.openPool(options.hosts[0]!)
  }

  private openPool(host: DbHost): Pool {
    const pool = this.options.open(host)
    const open = new Set<PoolConnection>()
    this.connections.set(pool, open)
    pool.on('connection', (connection) => {
      this.owners.set(connection, pool)
      open.add(connection)
      socketOf(connection)?.once('close', () => open.delete(connection))
    })
    return pool
  }

  getConnection(callback: Callback): void {
    this.acquire(callback, 0)
  }

  private acquire(callback: Callback, tries: number): void {
    const pool = this.pool
    pool.getConnection((error, connection) => {
      if (!error || this.hosts.length === 1) return callback(error, connection)
      // Once the list has looked for a host that answers, the call is asked of it (no statement has run).
      void this.check(pool).then(() => {
        if (pool !== this.pool && !this.closed && tries < this.hosts.length) this.acquire(callback, tries + 1)
        else callback(error, connection)
      })
    })
  }

  statementFailed(connection: PoolConnection, error: unknown): void {
    if (this.hosts.length === 1 || !hostTrouble(error)) return
    const pool = this.owners.get(connection)
    if (pool) void this.check(pool)
  }

  /**
   * One check at a time, and only of the host in use (a failure on a host already left says nothing
   * new), at most one every CHECK_SPACING_MS: while every host is down, each failed request would
   * otherwise have them all probed again.
   */
  private check(pool: Pool): Promise<void> {
    if (this.closed || pool !== this.pool) return Promise.resolve()
    if (!this.checking && performance.now() - this.checkedAt < CHECK_SPACING_MS) return Promise.resolve()
    this.checking ??= this.lookAround().finally(() => {
      this.checking = null
      this.checkedAt = performance.now()
    })
    return this.checking
  }

  private async lookAround(): Promise<void> {
    const { hosts, probe } = this.options
    const from = this.current
    const failure = await probe(hosts[from]!).then(
      () => null,
      (error: unknown) => error ?? new Error('the probe failed'),
    )
    if (failure === null) {
      this.down = false
      return
    }
    const others = Array.from({ length: hosts.length - 1 }, (_, k) => (from + 1 + k) % hosts.length)
    const answers = others.map((i) =>
      probe(hosts[i]!).then(
        () => true,
        () => false,
      ),
    )
    for (const [k, i] of others.entries()) {
      if (!(await answers[k])) continue
      if (!this.closed) this.moveTo(i, reasonOf(failure))
      return
    }
    if (!this.down && !this.closed) this.options.events?.noneAnswers?.({ hosts: this.hosts, reason: reasonOf(failure) })
    this.down = true
  }

  private moveTo(index: number, reason: string): void {
    const left = this.pool
    const from = this.current
    this.current = index
    this.pool = this.openPool(this.options.hosts[index]!)
    this.failovers++
    this.down = false
    this.options.events?.changed?.({ from: this.hosts[from]!, to: this.hosts[index]!, reason })
    left.end(() => {})
    const timer = setTimeout(() => this.sever(left), this.options.graceMs)
    timer.unref()
    this.retiring.set(left, timer)
  }

  /** Destroys the sockets of a host left that are still open (a host that hangs never closes them). */
  private sever(pool: Pool): void {
    clearTimeout(this.retiring.get(pool))
    this.retiring.delete(pool)
    for (const connection of this.connections.get(pool) ?? []) socketOf(connection)?.destroy()
  }

  end(callback: (error?: unknown) => void): void {
    this.closed = true
    for (const pool of [...this.retiring.keys()]) this.sever(pool)
    this.pool.end((error) => callback(error ?? undefined))
  }
}

/**
 * Whether `options`' server answers and takes queries, within `timeoutMs` (connect included). A
 * Galera node that left the cluster's primary component (`wsrep_ready` OFF) or was set aside for
 * maintenance (`wsrep_reject_queries`) takes connections and answers `SELECT 1`, and refuses every
 * statement that reads a table (errno 1047): its state says so, as a connection does not. A server
 * without Galera (`wsrep_on` absent or OFF) answers once it takes the connection and the statement.
 */
export function probeHost(options: ConnectionOptions, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    // mysql2's own connect bound later than ours, whose error says what happened in the operator's terms.
    const connection = createConnection({ ...options, connectTimeout: 2 * timeoutMs })
    let settled = false
    const finish = (error?: unknown) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      if (error) {
        socketOf(connection as PoolConnection)?.destroy()
        reject(error)
      } else {
        connection.end(() => {})
        resolve()
      }
    }
    const timer = setTimeout(
      () => finish(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: QUERY_TIMEOUT })),
      timeoutMs,
    )
    connection.on('error', finish)
    const notReady = (why: string) =>
      finish(Object.assign(new Error(`the node does not take queries (${why})`), { errno: WSREP_NOT_READY }))
    const values = (rows: unknown) =>
      Object.fromEntries(
        (rows as Array<{ Variable_name: string; Value: string }>).map((r) => [r.Variable_name, r.Value]),
      )
    connection.query(
      "show global variables where variable_name in ('wsrep_on', 'wsrep_reject_queries')",
      (error, variables) => {
        if (error) return finish(error)
        const { wsrep_on: on, wsrep_reject_queries: reject } = values(variables)
        if (on !== 'ON') return finish()
        if (reject !== undefined && reject !== 'NONE') return notReady(`wsrep_reject_queries ${reject}: set aside`)
        connection.query("show global status like 'wsrep_ready'", (error, status) => {
          if (error) return finish(error)
          const ready = values(status).wsrep_ready
          if (ready === 'ON') return finish()
          notReady(`wsrep_ready ${ready ?? 'unknown'}: outside the cluster's primary component, or still joining`)
        })
      },
    )
  })
}
