import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import SQLite from 'better-sqlite3'
import { createPool } from 'mysql2'
import {
  Kysely,
  MysqlAdapter,
  MysqlIntrospector,
  MysqlQueryCompiler,
  SqliteAdapter,
  SqliteDialect,
  SqliteQueryCompiler,
  ValueNode,
  sql,
  type DialectAdapter,
  type Driver,
  type LimitNode,
  type QueryCompiler,
} from 'kysely'
import type { Config } from '../config.js'
import type { Database, Db } from './types.js'
import { registerMysqlDirect, registerSqliteDirect } from './prepared.js'
import { createPrivateFile } from './private-file.js'
import { OutpostMysqlDriver, QUERY_TIMEOUT, queuedCallers, type PoolUsage } from './mysql-driver.js'
import { startCheckpointer } from './checkpointer.js'
import { setConflictBound } from './transaction.js'
import { isBusy, OutpostSqliteDriver, runStatement, SYNC_BUSY_WAIT_MS, type SqliteHandle } from './sqlite-driver.js'
import { registerStatementTap, type StatementTap } from './statements.js'

/**
 * What the metrics want to hear of the database (plugins/observability/metrics.ts): failed queries, told
 * apart by whether a bound ran out. `db/` imports nothing from `plugins/`: the caller hands it in.
 */
export interface DbObserver {
  queryFailed(kind: DbFailure): void
  /** SQLite's checkpoint thread failed (checkpointer.ts): worth a line in the log, nothing is lost. */
  checkpointFailed?(problem: Error): void
}

/**
 * `conflict`: a unique key or a deadlock refused the statement, which is how races are settled here
 * (the caller expects it and retries or answers 409): counted apart so that real errors stand out.
 */
export type DbFailure = 'error' | 'conflict' | 'query_timeout' | 'pool_timeout'

/** Error codes that mean a wait on the database ran out rather than the query being wrong. */
const TIMEOUT_CODES = new Set([QUERY_TIMEOUT, 'SQLITE_BUSY', 'ER_LOCK_WAIT_TIMEOUT'])
const CONFLICT_CODES = new Set([
  'ER_DUP_ENTRY',
  'ER_LOCK_DEADLOCK',
  'SQLITE_CONSTRAINT_UNIQUE',
  'SQLITE_CONSTRAINT_PRIMARYKEY',
])

function failureKind(error: unknown): DbFailure {
  const code = (error as { code?: string } | null)?.code
  if (code && TIMEOUT_CODES.has(code)) return 'query_timeout'
  if (code && CONFLICT_CODES.has(code)) return 'conflict'
  return 'error'
}

const poolUsages = new WeakMap<Db, PoolUsage & { size: number }>()

/**
 * The MySQL pool's use now (connections handed out, callers queued for one because none is free, the
 * pool's size); null on SQLite.
 */
export function poolUsage(db: Db): { inUse: number; waiting: number; size: number } | null {
  const usage = poolUsages.get(db)
  return usage ? { inUse: usage.inUse, waiting: queuedCallers(usage, usage.size), size: usage.size } : null
}

/**
 * Kysely's `log` hook, reduced to failed queries (SQLite's; the fast path of prepared.ts is not seen).
 * The MySQL driver reports its failures itself, the direct path of prepared.ts included.
 */
function failureLog(observer: DbObserver | undefined) {
  if (!observer) return undefined
  return (event: { level: string; error?: unknown }) => {
    if (event.level === 'error') observer.queryFailed(failureKind(event.error))
  }
}

type DbConfig = Pick<
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
>

/**
 * The longest a statement waits for another process's write lock: 5 s, never longer than
 * DB_QUERY_TIMEOUT_MS. The wait is asynchronous (sqlite-driver.ts): the event loop goes on meanwhile.
 */
const busyTimeoutMs = (config: Pick<Config, 'DB_QUERY_TIMEOUT_MS'>) => Math.min(5000, config.DB_QUERY_TIMEOUT_MS)
const MIGRATION_LOCK_WAIT_MS = 120_000

/**
 * The query bound for migrations, which are not requests: a table rebuilt can take minutes, and
 * MySQL's migration lock (Kysely's `get_lock`) waits up to an hour for another instance's run.
 */
export const MIGRATION_QUERY_TIMEOUT_MS = 2 * 3600 * 1000

/**
 * Kysely's SQLite adapter takes no migration lock (it assumes one connection), but two server
 * processes can share one database file. BEGIN IMMEDIATE takes SQLite's write lock for the whole
 * migration run, so the second process waits and then finds nothing left to do. It polls without
 * SQLite's busy wait: better-sqlite3 is synchronous, and a busy wait would stall the event loop.
 */
class MigrationLockingSqliteAdapter extends SqliteAdapter {
  override async acquireMigrationLock(db: Kysely<any>): Promise<void> {
    const deadline = Date.now() + MIGRATION_LOCK_WAIT_MS
    await sql`pragma busy_timeout = 0`.execute(db)
    try {
      for (;;) {
        try {
          await sql`begin immediate`.execute(db)
          return
        } catch (error) {
          if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw error
          await new Promise((resolve) => setTimeout(resolve, 25))
        }
      }
    } finally {
      await sql.raw(`pragma busy_timeout = ${SYNC_BUSY_WAIT_MS}`).execute(db)
    }
  }
  override async releaseMigrationLock(db: Kysely<any>): Promise<void> {
    await sql`commit`.execute(db)
  }
}

/**
 * SQLite plans a query with its LIMIT when the LIMIT is a bound value, and marks the statement to be
 * prepared again whenever that value is bound, which is every time it runs: about 25 µs wasted on
 * each paged read. A whole-number LIMIT is written into the SQL text instead; it is part of a
 * query's shape, and the statement cache keeps one statement per page size.
 */
class OutpostSqliteQueryCompiler extends SqliteQueryCompiler {
  protected override visitLimit(node: LimitNode): void {
    const limit = node.limit
    if (ValueNode.is(limit) && Number.isSafeInteger(limit.value)) {
      this.append(`limit ${limit.value as number}`)
      return
    }
    super.visitLimit(node)
  }
}

/**
 * Kysely over our MySQL driver (mysql-driver.ts). Kysely ends a driver only once it has run a query
 * through it, and prepared queries (prepared.ts) skip Kysely: a database that ran only those would
 * keep its pool open after `destroy`.
 */
class MysqlDb extends Kysely<Database> {
  constructor(private readonly mysqlDriver: OutpostMysqlDriver) {
    super({
      dialect: {
        createAdapter: () => new MysqlAdapter(),
        createDriver: () => mysqlDriver,
        createQueryCompiler: () => new MysqlQueryCompiler(),
        createIntrospector: (db) => new MysqlIntrospector(db),
      },
    })
  }

  override async destroy(): Promise<void> {
    await super.destroy()
    await this.mysqlDriver.destroy()
  }
}

class OutpostSqliteDialect extends SqliteDialect {
  constructor(
    private readonly handle: SqliteHandle,
    private readonly busyWaitMs: number,
  ) {
    super({ database: handle })
  }

  override createDriver(): Driver {
    return new OutpostSqliteDriver(this.handle, this.busyWaitMs)
  }
  override createAdapter(): DialectAdapter {
    return new MigrationLockingSqliteAdapter()
  }
  override createQueryCompiler(): QueryCompiler {
    return new OutpostSqliteQueryCompiler()
  }
}

const STATEMENT_CACHE_SIZE = 1024
const MYSQL_PREPARED_PER_CONNECTION = 256

/**
 * WAL pages after which a commit copies the log back into the database file (SQLite's default is
 * 1000, about 4 MB), should the checkpoint thread (checkpointer.ts) not keep the log shorter. The
 * copy runs on the request thread and ends in two fsyncs, and it writes each
 * page once however often it changed since the last one: a score submit changes about 8 pages, most
 * of them the same few (the count tree's top rows, the hot index pages), so at the default a busy
 * server copied and synced the same pages several times a second. At 10,000 pages (40 MB of log at
 * most) a bench measured save at 142 → 129 µs of CPU per request and its p99 at 46–62 → 24 ms,
 * score submits at 427–507 → 351–401 µs.
 */
const WAL_CHECKPOINT_PAGES = 10_000

/**
 * better-sqlite3 behind Kysely, with its prepared statements kept: Kysely prepares every query anew,
 * and preparing costs about as much as running a typical indexed query. Queries are built from a
 * fixed set of shapes, so a small map by SQL text catches them all. Reuse is safe because the driver
 * runs one statement at a time to completion (no streaming here), and SQLite re-prepares a cached
 * statement by itself after a schema change.
 */
function withStatementCache(database: SQLite.Database, onClose: () => void, tap: StatementTap): SqliteHandle {
  const statements = new Map<string, SQLite.Statement>()
  return {
    close: () => {
      onClose()
      database.close()
    },
    get inTransaction() {
      return database.inTransaction
    },
    // Called once for every statement run (runStatement), cached or not.
    prepare(sqlText: string) {
      tap.sent++
      tap.listener?.(sqlText)
      let statement = statements.get(sqlText)
      if (!statement) {
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!)
        statement = database.prepare(sqlText)
        statements.set(sqlText, statement)
      }
      return statement
    },
  }
}

/**
 * Turns the file to WAL (a no-op read for a file that is WAL already). Two processes opening a new
 * file at once (two instances, a server and the operator CLI) both try to switch it, and SQLite
 * refuses one of them at once with SQLITE_BUSY: its busy handler is not called where two connections
 * would wait on each other. The refused one tries again after a pause, by when the other has
 * switched the file, until `waitMs` has passed. It waits synchronously: this runs once, at the open,
 * before any request is served.
 */
export function enableWal(sqlite: SQLite.Database, waitMs: number): void {
  const deadline = Date.now() + waitMs
  const pause = new Int32Array(new SharedArrayBuffer(4))
  for (let ms = 1; ; ms = Math.min(ms * 2, 50)) {
    try {
      sqlite.pragma('journal_mode = WAL')
      return
    } catch (error) {
      if (!isBusy(error) || Date.now() + ms > deadline) throw error
      Atomics.wait(pause, 0, 0, ms)
    }
  }
}

/** Kysely over the driver DB_DRIVER names. Both dialects run the same migrations and queries. */
export function createDb(config: DbConfig, observer?: DbObserver): Db {
  const log = failureLog(observer)
  if (config.DB_DRIVER === 'mysql') {
    const pool = createPool({
      host: config.DB_HOST,
      port: config.DB_PORT,
      user: config.DB_USER,
      password: config.DB_PASS,
      database: config.DB_NAME,
      connectionLimit: config.DB_POOL_SIZE,
      charset: 'UTF8MB4_UNICODE_CI',
      timezone: 'Z',
      // Scores and balances go up to 2^53-1: numbers while exact, never silently rounded.
      supportBigNumbers: true,
      bigNumberStrings: false,
      decimalNumbers: true,
      // A server that accepts the connection but never greets (stopped, overloaded) must not hold it.
      connectTimeout: config.DB_QUERY_TIMEOUT_MS,
      enableKeepAlive: true,
      // The server-side prepared statements of db/prepared.ts, per connection (least recently used
      // closed first): the hot paths use a few dozen shapes; the bound keeps a connection's share of
      // the server's max_prepared_stmt_count (16,382 by default) small whatever the pool size.
      maxPreparedStatements: MYSQL_PREPARED_PER_CONNECTION,
    })
    const usage = { inUse: 0, asking: 0, size: config.DB_POOL_SIZE }
    const tap: StatementTap = { listener: null, sent: 0 }
    const driver = new OutpostMysqlDriver(pool, {
      tap,
      timeoutMs: config.DB_QUERY_TIMEOUT_MS,
      usage,
      onWaitTimeout: () => observer?.queryFailed('pool_timeout'),
      onQueryFailed: (error) => observer?.queryFailed(failureKind(error)),
    })
    const db = new MysqlDb(driver)
    registerMysqlDirect(db, driver)
    registerStatementTap(db, tap)
    poolUsages.set(db, usage)
    setConflictBound(db, config.DB_QUERY_TIMEOUT_MS)
    return db
  }
  if (config.DB_PATH !== ':memory:') mkdirSync(dirname(config.DB_PATH), { recursive: true })
  createPrivateFile(config.DB_PATH)
  const sqlite = new SQLite(config.DB_PATH)
  enableWal(sqlite, busyTimeoutMs(config))
  sqlite.pragma('synchronous = NORMAL')
  sqlite.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`)
  sqlite.pragma(`busy_timeout = ${SYNC_BUSY_WAIT_MS}`)
  sqlite.pragma('foreign_keys = ON')
  const stopCheckpointer =
    config.DB_PATH === ':memory:'
      ? () => {}
      : startCheckpointer(config.DB_PATH, (problem) => observer?.checkpointFailed?.(problem))
  const tap: StatementTap = { listener: null, sent: 0 }
  const statements = withStatementCache(sqlite, stopCheckpointer, tap)
  const waitMs = busyTimeoutMs(config)
  const db = new Kysely<Database>({ dialect: new OutpostSqliteDialect(statements, waitMs), log })
  registerStatementTap(db, tap)
  registerSqliteDirect(db, {
    inTransaction: () => sqlite.inTransaction,
    // A busy answer on the fast path of prepared.ts sends the statement through the driver, which waits.
    run: (sqlText, parameters) => runStatement(statements, sqlText, parameters),
  })
  return db
}
