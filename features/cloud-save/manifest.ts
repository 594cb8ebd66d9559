import { exportPart, type FeatureManifest } from '../../platform/core/features.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { exportForUser } from './service.js'
import { CloudSaveExportSchema } from './schemas.js'
import { migrations } from './migrations/index.js'

/** Cloud save's table and its part of a player's data export, for the platform and its route files. */
export const manifest: FeatureManifest = {
  name: 'cloud-save',
  tag: 'Cloud Save',
  adminRights: GAME_RIGHTS,
  tables: ['cloud_saves'],
  playerExport: exportPart({
    schema: CloudSaveExportSchema,
    read: async (db, userId) => ({ cloudSave: await exportForUser(db, userId) }),
    after: 'leaderboard',
  }),
  migrations,
}
