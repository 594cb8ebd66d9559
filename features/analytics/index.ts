import { defineFeature, adminRoutes } from '../../platform/core/features.js'
import { DEFAULT_GAME } from '../../db/games.js'
import { ADMIN_PREFIX } from '../../platform/core/paths.js'
import { ActivityRecorder } from './activity.js'
import { ROLLUP_EVERY_MS, runRollup } from './rollup.js'
import admin from './admin.js'
import { components } from './docs.js'
import { manifest } from './manifest.js'

export { manifest } from './manifest.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The activity marks and submit counts of this app, waiting for their next batched write. */
    analytics: ActivityRecorder
  }
}

export default defineFeature(
  manifest,
  async (app) => {
    const recorder = new ActivityRecorder(
      app.db,
      app.log.child({ component: 'analytics' }),
      app.config.ANALYTICS_ACTIVITY,
    )
    app.decorate('analytics', recorder)
    // The player is known once the session hooks (or sign-up and sign-in) have named them; marked only
    // when the answer is a success, after it was sent.
    app.addHook('onResponse', (request, reply, done) => {
      if (request.identity !== null && reply.statusCode < 400) recorder.mark(request.identity.userId, app.clock.now())
      done()
    })
    // The recorder writes to the default game's database: it counts that game's submits only.
    app.events.on('scoreSubmitted', (gameId, boardKey, now) => {
      if (gameId === DEFAULT_GAME) recorder.submitted(boardKey, now)
    })
    app.jobs.add({ name: 'analytics-rollup', everyMs: ROLLUP_EVERY_MS, run: (db, now) => runRollup(db, now) })
    app.addHook('onReady', async () => recorder.start())
    app.addHook('onClose', async () => recorder.stop())
    app.openapi.describe({}, components)
    await app.register(adminRoutes(manifest, admin), { prefix: ADMIN_PREFIX })
  },
  ['db', 'clock', 'sessions', 'events', 'jobs'],
)
