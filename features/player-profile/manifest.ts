import { exportPart, type FeatureManifest } from '../../platform/core/features.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { exportForUser } from './service.js'
import { ProfileExportSchema } from './schemas.js'
import { migrations } from './migrations/index.js'

/** Player profiles' tables and export part, for the platform and its route files. */
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
