// Remote config: string values by key, all of them, or those matching a pattern.
// Served from an in-process copy (no database round trip while nothing changed); an admin write shows
// at once on the instance that made it and within CONTENT_CHECK_INTERVAL_MS (1 s) on every other one.
import { adminRoutes, defineFeature, type FeatureManifest } from '../../platform/core/features.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { ContentCache } from '../../platform/content/content-cache.js'
import { ADMIN_PREFIX, APP_PREFIX } from '../../platform/core/paths.js'
import { loadRemoteConfig } from './service.js'
import routes from './routes.js'
import admin from './admin.js'
import { components } from './docs.js'
import { migrations } from './migrations/index.js'

export const manifest: FeatureManifest = {
  name: 'remote-config',
  tag: 'Remote Config',
  adminRights: GAME_RIGHTS,
  tables: ['remote_configs'],
  migrations,
  caches: ['remote-config'],
}

export default defineFeature(
  manifest,
  async (app) => {
    // One copy per app, shared by both halves: an admin write refreshes the copy the players read.
    const cache = new ContentCache(app.db, app.clock, 'remote-config', loadRemoteConfig, {
      onLookup: app.metrics.cacheLookup('remote-config'),
    })
    app.openapi.describe({}, components)
    await app.register(routes, { prefix: APP_PREFIX, cache })
    await app.register(adminRoutes(manifest, admin), { prefix: ADMIN_PREFIX, cache })
  },
  ['db', 'clock', 'metrics'],
)
