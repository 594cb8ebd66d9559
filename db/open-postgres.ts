import pg from 'pg'
import { Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely'
import type { Database, Db } from './types.js'
import type { DbConfig, DbObserver, OpenedPool } from './config.js'
import { dbHosts, hostLabel, type DbHost } from './hosts.js'
import { OutpostPostgresDriver, postgresTypes } from './postgres-driver.js'
import { postgresTls } from './tls.js'

/**
 * Kysely over our PostgreSQL driver (postgres-driver.ts), which like MySQL's ends its pool on
 * `destroy` even when only prepared queries (prepared.ts), which skip Kysely, ever used it.
 */
class PostgresDb extends Kysely<Database> {
  constructor(private readonly postgresDriver: OutpostPostgresDriver) {
    super({
      dialect: {
        createAdapter: () => new PostgresAdapter(),
        createDriver: () => postgresDriver,
        createQueryCompiler: () => new PostgresQueryCompiler(),
        createIntrospector: (db) => new PostgresIntrospector(db),
      },
    })
  }

  override async destroy(): Promise<void> {
    await super.destroy()
    await this.postgresDriver.destroy()
  }
}

/**
 * A pool of node-postgres clients behind Kysely. Every wait is bounded by DB_QUERY_TIMEOUT_MS: the
 * wait for a pool client (a connect included) and each statement (the driver), and
 * on the server each statement again (`statement_timeout`, so that one the driver gave up on stops
 * there too).
 */
export function openPostgres(config: DbConfig, observer: DbObserver | undefined, opened: OpenedPool): Db {
  // One host (loadConfig refuses a list for PostgreSQL: db/engines/postgres.ts says why), with its port.
  const [server] = dbHosts(config) as [DbHost]
  const pool = new pg.Pool({
    host: server.host,
    port: server.port,
    user: config.DB_USER,
    password: config.DB_PASS,
    database: config.DB_NAME,
    max: config.DB_POOL_SIZE,
    // node-postgres bounds the wait for a free pool client with this too. The driver's own bound on
    // that wait (the same DB_QUERY_TIMEOUT_MS) must be the one that answers, counted as a pool wait:
    // the pool's, set later, only ends a connect the caller has already been answered for.
    connectionTimeoutMillis: 2 * config.DB_QUERY_TIMEOUT_MS,
    statement_timeout: config.DB_QUERY_TIMEOUT_MS,
    keepAlive: true,
    application_name: 'outpost',
    ...(config.searchPath ? { options: `-c search_path=${config.searchPath}` } : {}),
    types: postgresTypes,
    ssl: postgresTls(config),
  })
  const driver = new OutpostPostgresDriver(pool, {
    tap: opened.tap,
    timeoutMs: config.DB_QUERY_TIMEOUT_MS,
    usage: opened.usage,
    onWaitTimeout: () => observer?.queryFailed('pool_timeout'),
    onQueryFailed: (error) => opened.onQueryFailed(error),
  })
  opened.direct = driver
  opened.hosts = { hosts: [hostLabel(server)], current: 0, failovers: 0 }
  return new PostgresDb(driver)
}
