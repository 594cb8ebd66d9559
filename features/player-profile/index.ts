import { adminRoutes, defineFeature } from '../../platform/core/features.js'
import { ADMIN_PREFIX, APP_PREFIX } from '../../platform/core/paths.js'
import type { ProfileLimits } from './service.js'
import routes from './routes.js'
import admin from './admin.js'
import { components } from './docs.js'
import { manifest } from './manifest.js'

export { manifest } from './manifest.js'

export default defineFeature(
  manifest,
  async (app) => {
    const limits: ProfileLimits = {
      maxBadges: app.config.PROFILE_MAX_BADGES,
      maxUnlocks: app.config.PROFILE_MAX_UNLOCKS,
    }
    app.openapi.describe({}, components)
    await app.register(routes, { prefix: APP_PREFIX, limits })
    await app.register(adminRoutes(manifest, admin), { prefix: ADMIN_PREFIX, limits })
  },
  ['db', 'clock', 'config', 'sessions', 'events'],
)
