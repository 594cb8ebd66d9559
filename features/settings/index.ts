// Settings: the configuration in effect, read-only and secrets masked, for owners (the console's
// settings page). Nothing here changes a setting: they come from the environment at start.
import { adminRoutes, defineFeature, type FeatureManifest } from '../../platform/core/features.js'
import { ADMIN_PREFIX } from '../../platform/core/paths.js'
import { OWNER_RIGHTS } from '../../platform/security/roles.js'
import { SettingListSchema } from './schemas.js'
import admin from './admin.js'

export const manifest: FeatureManifest = { name: 'settings', tag: 'Settings', adminRights: OWNER_RIGHTS, tables: [] }

export default defineFeature(
  manifest,
  async (app) => {
    app.openapi.describe({}, { SettingList: SettingListSchema })
    await app.register(adminRoutes(manifest, admin), { prefix: ADMIN_PREFIX })
  },
  ['config', 'openapi'],
)
