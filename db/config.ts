import type { Config } from '../config.js'
import type { PoolUsage } from './pool-bounds.js'
import type { PooledDirect } from './prepared.js'
import type { StatementTap } from './statements.js'

/*
 * The types the database's opener (index.ts) shares with each engine's opener (open-*.ts) and tls.ts,
 * in a module of their own so that neither side imports the other to name them.
 */

/**
 * What the metrics want to hear of the database (platform/observability/metrics/): failed queries, told
 * apart by whether a bound ran out. `db/` imports nothing from `platform/`: the caller hands it in.
 */
export interface DbObserver {
  queryFailed(kind: DbFailure): void
  /** SQLite's checkpoint thread failed (checkpointer.ts): worth a line in the log, nothing is lost. */
  checkpointFailed?(problem: Error): void
  /** A list of hosts (DB_HOST, mysql-hosts.ts) moved off `from`, which `reason` says did not answer, to `to`. */
  hostChanged?(change: { from: string; to: string; reason: string }): void
  /** The host in use of a list did not answer, nor did any other: it stays in use (said once until one answers). */
  noHostAnswers?(problem: { hosts: readonly string[]; reason: string }): void
}

/** The database hosts of DB_HOST (`db1:3306`, …), the index of the one written to now, and the moves so far, for the metrics. */
export interface HostState {
  readonly hosts: readonly string[]
  readonly current: number
  readonly failovers: number
}

/**
 * `conflict`: a unique key or a deadlock refused the statement, which is how races are settled here
 * (the caller expects it and retries or answers 409): counted apart so that real errors stand out.
 */
export type DbFailure = 'error' | 'conflict' | 'query_timeout' | 'pool_timeout'

/** The settings that pick and open the database: the part of the app's config db/ may see. */
export type DbConfig = Pick<
  Config,
  | 'DB_DRIVER'
  | 'DB_PATH'
  | 'DB_HOST'
  | 'DB_PORT'
  | 'DB_NAME'
  | 'DB_USER'
  | 'DB_PASS'
  | 'DB_POOL_SIZE'
  | 'DB_QUERY_TIMEOUT_MS'
  | 'DB_SSL'
  | 'DB_SSL_CA'
> & {
  /** PostgreSQL: the schemas unqualified names are looked up in (a game's migrations, db/games.ts); the server's default when absent. */
  searchPath?: string
}

/** What a server engine's opener fills in and reports to (open-mysql.ts, open-postgres.ts). */
export interface OpenedPool {
  tap: StatementTap
  usage: PoolUsage & { size: number }
  onQueryFailed(error: unknown): void
  /** The driver, for the direct path of prepared.ts. */
  direct?: PooledDirect
  /** The hosts the pool writes to, and which one now. */
  hosts?: HostState
}
