import { adminRoutes, defineFeature } from '../../platform/core/features.js'
import { ADMIN_PREFIX, APP_PREFIX } from '../../platform/core/paths.js'
import routes from './routes.js'
import admin from './admin.js'
import worker from './worker.js'
import { components } from './docs.js'
import { manifest } from './manifest.js'

export { manifest } from './manifest.js'

export default defineFeature(
  manifest,
  async (app) => {
    app.openapi.describe({}, components)
    await app.register(routes, { prefix: APP_PREFIX })
    await app.register(adminRoutes(manifest, admin), { prefix: ADMIN_PREFIX })
    // Decorates the app with `emailWorker` (fastify-plugin), which tests drive by hand.
    await app.register(worker)
  },
  ['db', 'clock', 'config', 'sessions', 'metrics', 'health', 'events', 'game-registry'],
)
