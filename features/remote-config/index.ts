import { adminRoutes, defineFeature } from '../../platform/core/features.js'
import { ContentCache } from '../../platform/content/content-cache.js'
import { ADMIN_PREFIX, APP_PREFIX } from '../../platform/core/paths.js'
import { loadRemoteConfig } from './service.js'
import routes from './routes.js'
import admin from './admin.js'
import { components } from './docs.js'
import { manifest } from './manifest.js'

export { manifest } from './manifest.js'

export default defineFeature(
  manifest,
  async (app) => {
    // One copy per game, shared by both halves: an admin write refreshes the copy the game's players read.
    const cache = app.games.scoped(
      (game) =>
        new ContentCache(game.db, app.clock, 'remote-config', loadRemoteConfig, {
          onLookup: app.metrics.cacheLookup('remote-config'),
        }),
    )
    app.openapi.describe({}, components)
    await app.register(routes, { prefix: APP_PREFIX, cache })
    await app.register(adminRoutes(manifest, admin), { prefix: ADMIN_PREFIX, cache })
  },
  ['db', 'clock', 'metrics'],
)
