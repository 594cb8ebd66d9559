import { adminRoutes, defineFeature } from '../../platform/core/features.js'
import { ADMIN_PREFIX, APP_PREFIX } from '../../platform/core/paths.js'
import routes from './routes.js'
import admin from './admin.js'
import { playerExport } from './export.js'
import { components } from './docs.js'
import { manifest } from './manifest.js'

export { manifest } from './manifest.js'

export default defineFeature(
  manifest,
  async (app) => {
    // Every feature's part of the export, from the manifests (all known before any feature registers).
    const exported = playerExport(app.features)
    app.openapi.describe({}, { ...components, UserExport: exported.schema })
    await app.register(routes, { prefix: APP_PREFIX })
    await app.register(adminRoutes(manifest, admin), { prefix: ADMIN_PREFIX, playerExport: exported })
  },
  ['db', 'clock', 'sessions', 'events'],
)
