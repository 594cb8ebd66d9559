// User logs: short log lines a game sends for one player (INFO, WARN, ERROR), for the
// operator to read. User-scoped; each line is one row, erased with the user.
import { adminRoutes, defineFeature, exportPart, type FeatureManifest } from '../../platform/core/features.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { ADMIN_PREFIX, APP_PREFIX } from '../../platform/core/paths.js'
import { exportForUser } from './service.js'
import routes from './routes.js'
import admin from './admin.js'
import { components } from './docs.js'
import { LogsExportSchema } from './schemas.js'
import { migrations } from './migrations/index.js'

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

export default defineFeature(
  manifest,
  async (app) => {
    app.openapi.describe({}, components)
    await app.register(routes, { prefix: APP_PREFIX })
    await app.register(adminRoutes(manifest, admin), { prefix: ADMIN_PREFIX })
  },
  ['db', 'clock', 'sessions', 'events'],
)
