import fp from 'fastify-plugin'
import type { Db } from '../../db/types.js'
import type { Migrations } from '../../db/migrate.js'
import { createGameStore, DEFAULT_GAME, dropGameStore } from '../../db/games.js'
import { requestDb } from '../../db/transaction.js'
import { readerOf } from '../../db/read-hosts.js'
import { GameRegistry, type Game } from './registry.js'
import { ensureDefaultGame, erasing, forgetGame, readSnapshot } from './store.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The server's games in memory (registry.ts). */
    games: GameRegistry
  }
  interface FastifyRequest {
    /** The game the request is for: decided by its app key, its admin path, else `default`. */
    game: Game
    /** The game's database, or inside an admin write the request's transaction on it. */
    readonly db: Db
    /**
     * Where the game's reads that may be seconds old go (analytics, admin lists, exports): a read host
     * of DB_READ_HOST while one is fit, else `db` (db/read-hosts.ts). Never for read-your-writes reads.
     */
    readonly reads: Db
  }
}

/**
 * Several games on one server (contract §14): the registry of games and keys, every request's game
 * (`request.game`, `request.db`), and at start the games' databases brought to the latest migration
 * and any erasure that stopped half-way finished.
 */
export default fp<{ migrations: Migrations }>(
  async (app, opts) => {
    const control = app.db
    const { config } = app
    // A database that cannot be read here (unreachable; not migrated, with MIGRATE_ON_START=false)
    // does not stop the start: the server answers as it does without a database, and the next start
    // does this work (`npm run migrate` does it too).
    try {
      await ensureDefaultGame(control, app.clock.now())
      await finishErasures(control, config)
      if (config.MIGRATE_ON_START) {
        for (const game of (await readSnapshot(control)).games) {
          if (game.id === DEFAULT_GAME) continue
          const applied = await createGameStore(control, config, game.id, opts.migrations)
          if (applied.length) app.log.info({ game: game.id, applied }, 'migrations applied')
        }
      }
    } catch (error) {
      app.log.warn(
        { err: error },
        "the games' databases could not be prepared at start (their migrations, an erasure left half-done): " +
          'the next start, or npm run migrate, does it',
      )
    }
    const registry = new GameRegistry(
      control,
      config,
      app.clock,
      { queryFailed: (kind) => app.metrics.queryFailed(kind) },
      app.log.child({ component: 'games' }),
      opts.migrations,
    )
    app.decorate('games', registry)
    // Each game's metric series are there at 0 from the moment the instance knows the game.
    registry.scoped((game) => app.metrics.gameKnown(game.id), { eager: true })
    // Every game's statements count (a SQLite game's database is a connection of its own).
    app.metrics.watchGameDbs(() => registry.openedDbs())
    // Set per request by the gates (api-key.ts on the app surface, admin-auth.ts on the admin one);
    // a public route's (health, docs) is `default`.
    app.decorateRequest('game', null as unknown as Game)
    app.decorateRequest('db', {
      getter(this: { game: Game | null }) {
        return requestDb((this.game ?? registry.default).db)
      },
    })
    app.decorateRequest('reads', {
      getter(this: { game: Game | null }) {
        return readerOf(requestDb((this.game ?? registry.default).db))
      },
    })
    // The game's last request on this instance: its background work rests when there is none (jobs/).
    app.addHook('onResponse', (request, _reply, done) => {
      if (request.game) registry.answered(request.game)
      done()
    })
    app.addHook('onReady', async () => registry.start())
    app.addHook('onClose', async () => registry.stop())
  },
  { name: 'game-registry', dependencies: ['db', 'config', 'clock', 'metrics'] },
)

/** Drops the databases of games whose erasure began but did not finish (a crash half-way), then their rows. */
async function finishErasures(control: Db, config: Parameters<typeof dropGameStore>[1]): Promise<void> {
  for (const id of await erasing(control)) {
    await dropGameStore(control, config, id)
    await forgetGame(control, id)
  }
}
