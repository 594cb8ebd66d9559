import { exportPart, type FeatureManifest } from '../../platform/core/features.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { exportForUser } from './service.js'
import { LogsExportSchema } from './schemas.js'
import { migrations } from './migrations/index.js'

/** User logs' table and export part, for the platform and its route files. */
export const manifest: FeatureManifest = {
  name: 'user-logs',
  tag: 'User Logs',
  adminRights: GAME_RIGHTS,
  tables: ['user_logs'],
  playerExport: exportPart({
    schema: LogsExportSchema,
    read: async (db, userId) => ({ logs: await exportForUser(db, userId) }),
  }),
  migrations,
}
