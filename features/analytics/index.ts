import { defineFeature, adminRoutes } from '../../platform/core/features.js'
import { ADMIN_PREFIX } from '../../platform/core/paths.js'
import { ActivityRecorder } from './activity.js'
import { backgroundPerGame, type BackgroundPerGame } from '../../platform/games/background.js'
import { ROLLUP_EVERY_MS, runRollup } from './rollup.js'
import admin from './admin.js'
import { components } from './docs.js'
import { manifest } from './manifest.js'

export { manifest } from './manifest.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The default game's activity marks and submit counts, waiting for their next batched write. */
    analytics: ActivityRecorder
    /** Every game's recorder, each writing into its game's database: `analyticsRecorders.of(game)`. */
    analyticsRecorders: BackgroundPerGame<ActivityRecorder>
  }
}

export default defineFeature(
  manifest,
  async (app) => {
    const log = app.log.child({ component: 'analytics' })
    // One per game, flushing into its game's database (a flush with nothing gathered sends nothing).
    const recorders = backgroundPerGame(
      app,
      (game) => new ActivityRecorder(game.db, log.child({ game: game.id }), app.config.ANALYTICS_ACTIVITY),
      { eager: true },
    )
    app.decorate('analyticsRecorders', recorders)
    app.decorate('analytics', { getter: () => recorders.of(app.games.default) })
    // The player is known once the session hooks (or sign-up and sign-in) have named them; marked only
    // when the answer is a success, after it was sent, in the request's game.
    app.addHook('onResponse', (request, reply, done) => {
      if (request.identity !== null && reply.statusCode < 400) {
        recorders.live(request.game ?? app.games.default)?.mark(request.identity.userId, app.clock.now())
      }
      done()
    })
    // Each game's submits are counted in that game's recorder.
    app.events.on('scoreSubmitted', (gameId, boardKey, now) => {
      const game = app.games.get(gameId)
      if (game) recorders.of(game).submitted(boardKey, now)
    })
    // Run for every game, in its database (platform/jobs).
    app.jobs.add({ name: 'analytics-rollup', everyMs: ROLLUP_EVERY_MS, run: (db, now) => runRollup(db, now) })
    app.openapi.describe({}, components)
    await app.register(adminRoutes(manifest, admin), { prefix: ADMIN_PREFIX })
  },
  ['db', 'clock', 'sessions', 'events', 'jobs', 'game-registry'],
)
