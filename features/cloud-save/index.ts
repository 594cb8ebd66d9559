// Cloud save: one save per player, as JSON text (`data`, compat `saveData`) or as raw
// bytes (octet-stream), loaded back byte-exact either way. The version counts saves; a save that
// expects a version no longer stored is refused (409) by the database, never by a read in JS; an
// oversize save is refused (413) before its body is buffered whole and leaves the stored save as it was.
import { defineFeature, exportPart, type FeatureManifest } from '../../platform/core/features.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { APP_PREFIX } from '../../platform/core/paths.js'
import { exportForUser } from './service.js'
import routes from './routes.js'
import { components } from './docs.js'
import { CloudSaveExportSchema } from './schemas.js'
import { migrations } from './migrations/index.js'

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

export default defineFeature(
  manifest,
  async (app) => {
    app.openapi.describe({}, components)
    await app.register(routes, { prefix: APP_PREFIX })
  },
  ['db', 'clock', 'config', 'sessions', 'events'],
)
