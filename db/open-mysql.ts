import { createPool, type ConnectionOptions, type Pool } from 'mysql2'
import { Kysely, MysqlAdapter, MysqlIntrospector, MysqlQueryCompiler, type Driver } from 'kysely'
import type { Database, Db } from './types.js'
import type { DbConfig, DbObserver, OpenedPool } from './config.js'
import { dbHosts, type DbHost } from './hosts.js'
import { OutpostMysqlDriver } from './mysql-driver.js'
import { MysqlHosts, probeHost } from './mysql-hosts.js'
import { mysqlTls } from './tls.js'
import { prepareSession } from './mysql-session.js'
import { ReadDriver, type ReadFallback } from './read-driver.js'
import { registerPooledDirect } from './prepared.js'

const MYSQL_PREPARED_PER_CONNECTION = 256

/**
 * Kysely over our MySQL driver (mysql-driver.ts). Kysely ends a driver only once it has run a query
 * through it, and prepared queries (prepared.ts) skip Kysely: a database that ran only those would
 * keep its pool open after `destroy`.
 */
class MysqlDb extends Kysely<Database> {
  constructor(private readonly mysqlDriver: Driver & { destroy(): Promise<void> }) {
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

/** The longest probe of a host of a list (mysql-hosts.ts): the health check's bound, or the query bound when shorter. */
const HOST_PROBE_MS = 2000
/**
 * The longest connect with several hosts: the query bound, but at most 10 s, so that a migration's
 * connection (whose bound is hours) to a host that hangs gives up and the next host is tried.
 */
const HOST_CONNECT_MS = 10_000

/** mysql2's options for a connection to one host of DB_HOST: the pools' connections and the probes alike. */
function connectionOptions(config: DbConfig, host: DbHost, connectTimeout: number): ConnectionOptions {
  return {
    host: host.host,
    port: host.port,
    user: config.DB_USER,
    password: config.DB_PASS,
    database: config.DB_NAME,
    charset: 'UTF8MB4_UNICODE_CI',
    timezone: 'Z',
    // Scores and balances go up to 2^53-1: numbers while exact, never silently rounded.
    supportBigNumbers: true,
    bigNumberStrings: false,
    decimalNumbers: true,
    // A server that accepts the connection but never greets (stopped, overloaded) must not hold it.
    connectTimeout,
    enableKeepAlive: true,
    // The server-side prepared statements of db/prepared.ts, per connection (least recently used
    // closed first): the hot paths use a few dozen shapes; the bound keeps a connection's share of
    // the server's max_prepared_stmt_count (16,382 by default) small whatever the pool size.
    maxPreparedStatements: MYSQL_PREPARED_PER_CONNECTION,
    // verify: the certificate must name this host (each host of a list its own).
    ssl: mysqlTls(config),
  }
}

/** The pool of connections to one host: every pool is made here (what each new connection must do goes here too). */
function hostPool(config: DbConfig, host: DbHost, connectTimeout: number): Pool {
  const pool = createPool({ ...connectionOptions(config, host, connectTimeout), connectionLimit: config.DB_POOL_SIZE })
  pool.on('connection', prepareSession)
  return pool
}

/**
 * A pool of mysql2 connections behind Kysely, every wait bounded by DB_QUERY_TIMEOUT_MS, on the
 * host of DB_HOST written to now: with a list, the next one that answers when it stops (mysql-hosts.ts).
 */
export function openMysql(config: DbConfig, observer: DbObserver | undefined, opened: OpenedPool): Db {
  const hosts = dbHosts(config)
  const connectTimeout =
    hosts.length > 1 ? Math.min(config.DB_QUERY_TIMEOUT_MS, HOST_CONNECT_MS) : config.DB_QUERY_TIMEOUT_MS
  const probeMs = Math.min(config.DB_QUERY_TIMEOUT_MS, HOST_PROBE_MS)
  const pool = new MysqlHosts({
    hosts,
    open: (host) => hostPool(config, host, connectTimeout),
    probe: (host) => probeHost(connectionOptions(config, host, probeMs), probeMs),
    graceMs: connectTimeout,
    events: {
      changed: (change) => observer?.hostChanged?.(change),
      noneAnswers: (problem) => observer?.noHostAnswers?.(problem),
    },
  })
  const driver = new OutpostMysqlDriver(pool, {
    tap: opened.tap,
    timeoutMs: config.DB_QUERY_TIMEOUT_MS,
    usage: opened.usage,
    onWaitTimeout: () => observer?.queryFailed('pool_timeout'),
    onQueryFailed: (error) => opened.onQueryFailed(error),
  })
  const db = new MysqlDb(driver)
  opened.direct = driver
  opened.hosts = pool
  return db
}

/**
 * A read host of DB_READ_HOST (read-hosts.ts): Kysely over a pool of its own, made as the writer's
 * are (hostPool), each statement bounded by DB_QUERY_TIMEOUT_MS, the writer taking a read the host
 * fails (read-driver.ts).
 */
export function openMysqlReader(
  config: DbConfig,
  host: DbHost,
  fallback: ReadFallback,
): { db: Db; onHost: ReadDriver['runOnHost'] } {
  const pool = new MysqlHosts({
    hosts: [host],
    open: (one) => hostPool(config, one, config.DB_QUERY_TIMEOUT_MS),
    probe: () => Promise.resolve(),
    graceMs: config.DB_QUERY_TIMEOUT_MS,
  })
  const driver = new ReadDriver(
    new OutpostMysqlDriver(pool, {
      timeoutMs: config.DB_QUERY_TIMEOUT_MS,
      usage: { inUse: 0, asking: 0 },
      onWaitTimeout: () => {},
      onQueryFailed: () => {},
    }),
    fallback,
  )
  const db = new MysqlDb(driver)
  registerPooledDirect(db, driver)
  return { db, onHost: (sqlText, parameters) => driver.runOnHost(sqlText, parameters) }
}
