import { adminRoutes, defineFeature } from '../../platform/core/features.js'
import { ADMIN_PREFIX } from '../../platform/core/paths.js'
import { SettingListSchema } from './schemas.js'
import admin from './admin.js'
import { manifest } from './manifest.js'

export { manifest } from './manifest.js'

export default defineFeature(
  manifest,
  async (app) => {
    app.openapi.describe({}, { SettingList: SettingListSchema })
    await app.register(adminRoutes(manifest, admin), { prefix: ADMIN_PREFIX })
  },
  ['config', 'openapi'],
)
