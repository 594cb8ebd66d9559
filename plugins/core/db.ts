import fp from 'fastify-plugin'
import { sql } from 'kysely'
import { createDb } from '../../db/index.js'
import type { Db } from '../../db/types.js'
import { migrateToLatest } from '../../db/migrate.js'

declare module 'fastify' {
  interface FastifyInstance {
    db: Db
    /** True when the database answers a trivial query within `timeoutMs`. */
    pingDb(timeoutMs?: number): Promise<boolean>
  }
}

export default fp<{ db?: Db }>(
  async (app, opts) => {
    // Tests may hand in a database they prepared; the server builds it from the config.
    const db = opts.db ?? createDb(app.config)
    if (app.config.MIGRATE_ON_START) {
      const applied = await migrateToLatest(db)
      if (applied.length) app.log.info({ applied }, 'migrations applied')
    }
    app.decorate('db', db)
    app.decorate('pingDb', async (timeoutMs = 2000) => {
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
  { name: 'db', dependencies: ['config'] },
)
