// Analytics (contract §12): what an operator looks at every morning — active players, sign-ups,
// retention, crash-free rate, submits — from daily rollups a background job builds off the request
// path, and one small record of its own: the days each player was active, batched (activity.ts), so a
// request never waits on a statement for it. Any role may read; nothing here writes through the API.
import { defineFeature, adminRoutes, type FeatureManifest } from '../../platform/core/features.js'
import { ADMIN_PREFIX } from '../../platform/core/paths.js'
import { ActivityRecorder } from './activity.js'
import { ROLLUP_EVERY_MS, runRollup } from './rollup.js'
import admin from './admin.js'
import { components } from './docs.js'
import { migrations } from './migrations/index.js'

export const manifest: FeatureManifest = {
  name: 'analytics',
  tag: 'Analytics',
  adminRights: { read: 'viewer', write: 'owner' },
  tables: ['player_activity', 'analytics_daily', 'analytics_days'],
  migrations,
}

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
    app.events.on('scoreSubmitted', (boardKey, now) => recorder.submitted(boardKey, now))
    app.jobs.add({ name: 'analytics-rollup', everyMs: ROLLUP_EVERY_MS, run: (db, now) => runRollup(db, now) })
    app.addHook('onReady', async () => recorder.start())
    app.addHook('onClose', async () => recorder.stop())
    app.openapi.describe({}, components)
    await app.register(adminRoutes(manifest, admin), { prefix: ADMIN_PREFIX })
  },
  ['db', 'clock', 'sessions', 'events', 'jobs'],
)
