// Users: check a session, change the one name, sign out. Names are stored once, on the
// user, so a rename shows everywhere at once; signing out revokes only the presented session.
import { adminRoutes, defineFeature, type FeatureManifest } from '../../platform/core/features.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { ADMIN_PREFIX, APP_PREFIX } from '../../platform/core/paths.js'
import routes from './routes.js'
import admin from './admin.js'
import { components } from './docs.js'
import { playerExport } from './export.js'
import { PlayerBannedEventSchema } from './schemas.js'
import { migrations } from './migrations/index.js'

export const manifest: FeatureManifest = {
  name: 'users',
  tag: 'Users',
  adminRights: GAME_RIGHTS,
  tables: ['users', 'user_identities'],
  events: [
    { type: 'player.banned', title: 'Player banned', payload: PlayerBannedEventSchema, after: 'gift_code.exhausted' },
  ],
  migrations,
}

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
