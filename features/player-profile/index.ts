// Player profile: the name and cosmetics other players see, the player's unlocks and the
// catalog. An update is checked whole (five codes, in the order of contract §5.1) before anything is stored.
import { adminRoutes, defineFeature, exportPart, type FeatureManifest } from '../../platform/core/features.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { ADMIN_PREFIX, APP_PREFIX } from '../../platform/core/paths.js'
import type { ProfileLimits } from './service.js'
import { exportForUser } from './service.js'
import routes from './routes.js'
import admin from './admin.js'
import { components } from './docs.js'
import { ProfileExportSchema } from './schemas.js'
import { migrations } from './migrations/index.js'

export const manifest: FeatureManifest = {
  name: 'player-profile',
  tag: 'Player Profile',
  adminRights: GAME_RIGHTS,
  tables: ['cosmetics', 'player_profiles', 'player_unlocks'],
  playerExport: exportPart({
    schema: ProfileExportSchema,
    read: async (db, userId) => {
      const { profile, unlocks } = await exportForUser(db, userId)
      return { profile, unlocks }
    },
  }),
  migrations,
}

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
