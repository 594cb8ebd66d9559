// Users: check a session, change the one name, sign out. Names are stored once, on the
// user, so a rename shows everywhere at once; signing out revokes only the presented session.
import { adminRoutes, defineFeature, type FeatureManifest } from '../../platform/core/features.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { ADMIN_PREFIX, APP_PREFIX } from '../../platform/core/paths.js'
import routes from './routes.js'
import admin from './admin.js'
import { components } from './docs.js'

export const manifest: FeatureManifest = {
  name: 'users',
  tag: 'Users',
  adminRights: GAME_RIGHTS,
  tables: ['users', 'user_identities'],
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
