import fp from 'fastify-plugin'
import { sql } from 'kysely'
import type { FastifyBaseLogger } from 'fastify'
import { createDb, isDatabaseServer, MIGRATION_QUERY_TIMEOUT_MS, type DbObserver } from '../../db/index.js'
import type { Db } from '../../db/types.js'
import { migrateToLatest, type Migrations } from '../../db/migrate.js'
import { requestDb } from '../../db/transaction.js'
import { checkDatabase, explainDbError } from '../../db/startup-check.js'
import { openReadHosts, type ReadHostEvents } from '../../db/read-hosts.js'

declare module 'fastify' {
  interface FastifyInstance {
    db: Db
    /** True when the database answers a trivial query within `timeoutMs`. */
    pingDb(timeoutMs?: number): Promise<boolean>
  }
}

/**
 * The log lines of a list of database hosts (DB_HOST, db/mysql-hosts.ts): a move to another host,
 * and none answering. Warnings: the service goes on, but a server of the cluster needs a look.
 */
export function hostLog(log: FastifyBaseLogger): Pick<DbObserver, 'hostChanged' | 'noHostAnswers'> {
  return {
    hostChanged: ({ from, to, reason }) =>
      log.warn({ from, to, reason }, `database host ${from} does not answer (${reason}): writing to ${to} from now on`),
    noHostAnswers: ({ hosts, reason }) =>
      log.warn(
        { hosts, reason },
        `no database host answers (${hosts.join(', ')}; the one in use: ${reason}): requests answer 503 until one does`,
      ),
  }
}

/**
 * The log lines of the read hosts (DB_READ_HOST, db/read-hosts.ts): reads going back to the writer,
 * and coming back to a read host. Warnings: the writer takes the reads meanwhile.
 */
export function readHostLog(log: FastifyBaseLogger): ReadHostEvents {
  return {
    toWriter: ({ from, reason }) =>
      log.warn(
        { from, reason },
        `reads leave the read host ${from} (${reason}): the writer takes them until a read host is fit`,
      ),
    toHost: ({ to, lagMs }) =>
      log.warn(
        { to, lagMs },
        `reads that may be seconds old go to the read host ${to} (${lagMs} ms behind the writer)`,
      ),
  }
}

export default fp<{ db?: Db; migrations: Migrations }>(
  async (app, opts) => {
    // Tests may hand in a database they prepared; the server builds it from the config.
    let db: Db
    try {
      db =
        opts.db ??
        createDb(app.config, {
          queryFailed: (kind) => app.metrics.queryFailed(kind),
          checkpointFailed: (problem) => app.log.warn({ err: problem }, problem.message),
          ...hostLog(app.log),
        })
    } catch (error) {
      throw explainDbError(error, app.config)
    }
    app.metrics.watchDb(db)
    if (app.config.MIGRATE_ON_START) {
      // A wrong host, port, account or database name is said as such, not as a failed migration.
      // With a list of hosts, one answering is enough to start: the others' problems are said here.
      if (!opts.db) for (const problem of await checkDatabase(app.config)) app.log.warn(problem)
      // On a database server migrations get a connection of their own, outside the per-request query
      // bound. (A SQLite query has no bound to lift, and ':memory:' would be another database on
      // another connection.)
      const migrationDb =
        opts.db || !isDatabaseServer(app.config)
          ? db
          : createDb(
              { ...app.config, DB_POOL_SIZE: 1, DB_QUERY_TIMEOUT_MS: MIGRATION_QUERY_TIMEOUT_MS },
              { queryFailed: () => {}, ...hostLog(app.log) },
            )
      try {
        const applied = await migrateToLatest(migrationDb, opts.migrations).catch((error) => {
          throw explainDbError(error, app.config)
        })
        if (applied.length) app.log.info({ applied }, 'migrations applied')
      } finally {
        if (migrationDb !== db) await migrationDb.destroy()
      }
    }
    // The read hosts are probed from now on (their heartbeat row is migrated); reads stay on the writer
    // until one is found fit.
    const reads = opts.db ? null : openReadHosts(db, app.config, readHostLog(app.log))
    reads?.start()
    if (reads) app.addHook('onClose', async () => reads.stop())
    // An admin write runs in one transaction with its audit entry (audit.ts): inside it, `app.db` is
    // that transaction, so the feature's handler and services join it without knowing.
    app.decorate('db', { getter: () => requestDb(db) })
    // Health answers within 2 s (or the query bound, if shorter). The ping goes through the same
    // bounded pool as every request, so a ping that times out never leaves a connection behind.
    app.decorate('pingDb', async (timeoutMs = Math.min(2000, app.config.DB_QUERY_TIMEOUT_MS)) => {
      let timer: NodeJS.Timeout | undefined
      const timeout = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs)
      })
      const query = sql`select 1 as ok`.execute(db).then(
        () => true,
        () => false,
      )
      try {
        return await Promise.race([query, timeout])
      } finally {
        clearTimeout(timer)
      }
    })
    if (!opts.db) app.addHook('onClose', async () => db.destroy())
  },
  { name: 'db', dependencies: ['config', 'metrics'] },
)
