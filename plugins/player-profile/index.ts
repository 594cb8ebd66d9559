// Player profile: the name and cosmetics other players see, the player's unlocks and the
// catalog. An update is checked whole (five codes, in the contract's order) before anything is stored.
import fp from 'fastify-plugin'
import { ADMIN_PREFIX, APP_PREFIX } from '../core/paths.js'
import type { ProfileLimits } from './service.js'
import routes from './routes.js'
import admin from './admin.js'
import { components, docs } from './docs.js'

export default fp(
  async (app) => {
    const limits: ProfileLimits = {
      maxBadges: app.config.PROFILE_MAX_BADGES,
      maxUnlocks: app.config.PROFILE_MAX_UNLOCKS,
    }
    app.openapi.describe(docs, components)
    await app.register(routes, { prefix: APP_PREFIX, limits })
    await app.register(admin, { prefix: ADMIN_PREFIX, limits })
  },
  { name: 'player-profile', dependencies: ['db', 'clock', 'config', 'sessions', 'events'] },
)
