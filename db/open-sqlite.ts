import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import SQLite from 'better-sqlite3'
import {
  Kysely,
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
import type { Database, Db } from './types.js'
import type { DbConfig, DbObserver } from './config.js'
import { registerSqliteDirect } from './prepared.js'
import { createPrivateFile } from './private-file.js'
import { startCheckpointer } from './checkpointer.js'
import { isBusy, OutpostSqliteDriver, runStatement, SYNC_BUSY_WAIT_MS, type SqliteHandle } from './sqlite-driver.js'
import { registerStatementTap, type StatementTap } from './statements.js'

/**
 * The longest a statement waits for another process's write lock: 5 s, never longer than
 * DB_QUERY_TIMEOUT_MS. The wait is asynchronous (sqlite-driver.ts): the event loop goes on meanwhile.
 */
const busyTimeoutMs = (config: Pick<DbConfig, 'DB_QUERY_TIMEOUT_MS'>) => Math.min(5000, config.DB_QUERY_TIMEOUT_MS)
const MIGRATION_LOCK_WAIT_MS = 120_000

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

/** A SQLite file (made, private to its owner, where it does not exist) behind Kysely. */
export function openSqlite(
  config: DbConfig,
  observer: DbObserver | undefined,
  log: ((event: { level: string; error?: unknown }) => void) | undefined,
): Db {
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
