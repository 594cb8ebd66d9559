import type { Db } from './types.js'
import { anyEngine } from './dialect.js'
import { engineNamed, type EngineName } from './engines/index.js'
import { queuedCallers, type PoolUsage } from './pool-bounds.js'
import type { DbConfig, DbFailure, DbObserver, HostState, OpenedPool } from './config.js'
import { describeHosts } from './hosts.js'
import { openMysql } from './open-mysql.js'
import { openPostgres } from './open-postgres.js'
import { openSqlite } from './open-sqlite.js'
import { pooledDirectOf, registerPooledDirect, registerSqliteDirect, sqliteDirectOf } from './prepared.js'
import { registerStatementTap, statementTapOf } from './statements.js'
import { conflictBoundOf, setConflictBound } from './transaction.js'

export { enableWal } from './open-sqlite.js'
export type { DbConfig, DbFailure, DbObserver, HostState, OpenedPool } from './config.js'

function failureKind(error: unknown): DbFailure {
  if (anyEngine(error, 'timeout')) return 'query_timeout'
  if (anyEngine(error, 'unique') || anyEngine(error, 'conflict')) return 'conflict'
  return 'error'
}

const poolUsages = new WeakMap<Db, PoolUsage & { size: number }>()
/** The settings each server engine's handle was opened with (`openedWith`). */
const openedConfigs = new WeakMap<Db, DbConfig>()

/**
 * The settings `db` was opened with by `createDb` (a database server's handle; not a game's handle
 * derived from it): what opens a connection of its own beside it, as the migration lock does
 * (migration-lock.ts).
 */
export function openedWith(db: Db): DbConfig | undefined {
  return openedConfigs.get(db)
}

/**
 * The pool's use now (connections handed out, callers queued for one because none is free, the
 * pool's size); null for an embedded database.
 */
export function poolUsage(db: Db): { inUse: number; waiting: number; size: number } | null {
  const usage = poolUsages.get(db)
  return usage ? { inUse: usage.inUse, waiting: queuedCallers(usage, usage.size), size: usage.size } : null
}

const hostStates = new WeakMap<Db, HostState>()

/**
 * The hosts of DB_HOST the pool writes to (`db1:3306`, …), the index of the one in use now and the
 * moves made so far (mysql-hosts.ts); null for an embedded database.
 */
export function databaseHosts(db: Db): HostState | null {
  return hostStates.get(db) ?? null
}

/**
 * Kysely's `log` hook, reduced to failed queries (SQLite's; the fast path of prepared.ts is not seen).
 * The pooled drivers report their failures themselves, the direct path of prepared.ts included.
 */
function failureLog(observer: DbObserver | undefined) {
  if (!observer) return undefined
  return (event: { level: string; error?: unknown }) => {
    if (event.level === 'error') observer.queryFailed(failureKind(event.error))
  }
}

/**
 * The query bound for migrations, which are not requests: a table rebuilt can take minutes, and a
 * migration lock (MySQL's `get_lock`, PostgreSQL's advisory lock) waits for another instance's run.
 */
export const MIGRATION_QUERY_TIMEOUT_MS = 2 * 3600 * 1000

/**
 * How each engine's database is opened. Kept apart from the engine modules (db/engines/), which
 * config.ts loads: the drivers load only here, when a database is made. A server engine's pool
 * reports to `OpenedPool`; the embedded one keeps its own statement cache and tap.
 */
const OPENERS: Record<
  EngineName,
  'embedded' | ((config: DbConfig, observer: DbObserver | undefined, opened: OpenedPool) => Db)
> = { sqlite: 'embedded', mysql: openMysql, postgres: openPostgres }

/** Kysely over the engine DB_DRIVER names (db/engines/); every engine runs the same migrations and queries. */
export function createDb(config: DbConfig, observer?: DbObserver): Db {
  const open = OPENERS[engineNamed(config.DB_DRIVER).name]
  if (open === 'embedded') return openSqlite(config, observer, failureLog(observer))
  const opened: OpenedPool = {
    tap: { listener: null, sent: 0 },
    usage: { inUse: 0, asking: 0, size: config.DB_POOL_SIZE },
    onQueryFailed: (error) => observer?.queryFailed(failureKind(error)),
  }
  const db = open(config, observer, opened)
  registerPooledDirect(db, opened.direct!)
  registerStatementTap(db, opened.tap)
  poolUsages.set(db, opened.usage)
  openedConfigs.set(db, config)
  if (opened.hosts) hostStates.set(db, opened.hosts)
  setConflictBound(db, config.DB_QUERY_TIMEOUT_MS)
  return db
}

/**
 * Makes `derived`, a handle over the same pool or file as `base` (a game's, db/games.ts), known
 * where `base` is: its direct path (prepared.ts), statement tap, pool use and conflict bound.
 */
export function inheritHandle(base: Db, derived: Db): void {
  const direct = pooledDirectOf(base)
  if (direct) registerPooledDirect(derived, direct)
  const embedded = sqliteDirectOf(base)
  if (embedded) registerSqliteDirect(derived, embedded)
  const tap = statementTapOf(base)
  if (tap) registerStatementTap(derived, tap)
  const usage = poolUsages.get(base)
  if (usage) poolUsages.set(derived, usage)
  const hosts = hostStates.get(base)
  if (hosts) hostStates.set(derived, hosts)
  const bound = conflictBoundOf(base)
  if (bound !== undefined) setConflictBound(derived, bound)
}

/** Whether the configured engine is a server reached over the network (not an embedded file). */
export function isDatabaseServer(config: Pick<DbConfig, 'DB_DRIVER'>): boolean {
  return engineNamed(config.DB_DRIVER).defaultPort !== null
}

/**
 * Which database, without its password: `sqlite ./data/outpost.db`, `postgres outpost@db:5432/outpost`
 * or, with a list of hosts, `mysql outpost@db1:3306,db2:3306/outpost`.
 */
export function describeDatabase(config: DbConfig): string {
  return isDatabaseServer(config)
    ? `${config.DB_DRIVER} ${config.DB_USER}@${describeHosts(config)}/${config.DB_NAME}`
    : `${config.DB_DRIVER} ${config.DB_PATH}`
}
