import { createPool } from 'mysql2'
import { Kysely, MysqlAdapter, MysqlIntrospector, MysqlQueryCompiler } from 'kysely'
import type { Database, Db } from './types.js'
import type { DbConfig, DbObserver, OpenedPool } from './config.js'
import { OutpostMysqlDriver } from './mysql-driver.js'
import { mysqlTls } from './tls.js'
import { prepareSession } from './mysql-session.js'

const MYSQL_PREPARED_PER_CONNECTION = 256

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

/** A pool of mysql2 connections behind Kysely, every wait bounded by DB_QUERY_TIMEOUT_MS. */
export function openMysql(config: DbConfig, observer: DbObserver | undefined, opened: OpenedPool): Db {
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
    ssl: mysqlTls(config),
  })
  pool.on('connection', prepareSession)
  const driver = new OutpostMysqlDriver(pool, {
    tap: opened.tap,
    timeoutMs: config.DB_QUERY_TIMEOUT_MS,
    usage: opened.usage,
    onWaitTimeout: () => observer?.queryFailed('pool_timeout'),
    onQueryFailed: (error) => opened.onQueryFailed(error),
  })
  const db = new MysqlDb(driver)
  opened.direct = driver
  return db
}
