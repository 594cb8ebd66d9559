import t from 'tap'
import { sql } from 'kysely'
import { eachDialect, freshDatabase, testConfig } from '../../helpers/app.js'
import { parsePrometheus, valueOf } from '../../helpers/prometheus.js'
import { Metrics } from '../../../platform/observability/metrics/index.js'
import { createDb } from '../../../db/index.js'
import { migrateToLatest } from '../../../db/migrate.js'
import { MIGRATIONS } from '../../../app.js'

/**
 * `outpost_db_statements_total` over several games (contract §14): a game on SQLite has a connection
 * of its own, a game on a server engine shares the server's pool, and each statement counts once.
 */
eachDialect(t, async (t, dialect) => {
  t.test("every game's statements count, once each, and a closed game's stay counted", async (t) => {
    const base = createDb(testConfig(await freshDatabase(t, dialect)))
    t.teardown(() => base.destroy())
    await migrateToLatest(base, MIGRATIONS)
    // A game's database: on SQLite a connection of its own, on a server engine the same pool.
    const game = dialect === 'sqlite' ? createDb(testConfig(await freshDatabase(t, dialect))) : base
    const games = [game]
    const metrics = new Metrics()
    metrics.watchDb(base)
    metrics.watchGameDbs(() => games)
    const read = async () => valueOf(parsePrometheus(await metrics.text()), 'outpost_db_statements_total')!
    const before = await read()
    await sql`select 1`.execute(base)
    await sql`select 1`.execute(game)
    t.equal((await read()) - before, 2, "the server's and the game's statement, each counted once")
    games.length = 0
    if (game !== base) await game.destroy()
    t.equal((await read()) - before, 2, 'a game no longer listed stays counted: the counter never goes back')
  })
})
