import { adminRoutes, defineFeature } from '../../platform/core/features.js'
import { ADMIN_PREFIX } from '../../platform/core/paths.js'
import admin from './admin.js'
import keysAdmin from './admin-keys.js'
import copyAdmin from './admin-copy.js'
import { components } from './docs.js'
import { manifest } from './manifest.js'

export { manifest } from './manifest.js'

export default defineFeature(
  manifest,
  async (app) => {
    app.openapi.describe({}, components)
    await app.register(adminRoutes(manifest, admin), { prefix: ADMIN_PREFIX })
    await app.register(adminRoutes(manifest, keysAdmin), { prefix: ADMIN_PREFIX })
    await app.register(adminRoutes(manifest, copyAdmin), { prefix: ADMIN_PREFIX })
  },
  ['db', 'clock', 'config', 'admin-auth', 'openapi', 'game-registry'],
)
