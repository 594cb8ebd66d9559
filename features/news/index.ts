// News: released items, newest first, as a bare array. Served from an in-process copy
// filtered by the clock on every request, so a scheduled item appears on time without any write; an
// admin write shows at once on its own instance and within CONTENT_CHECK_INTERVAL_MS (1 s) elsewhere.
import { adminRoutes, defineFeature, type FeatureManifest } from '../../platform/core/features.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { ContentCache } from '../../platform/content/content-cache.js'
import { ADMIN_PREFIX, APP_PREFIX } from '../../platform/core/paths.js'
import { loadNews } from './service.js'
import routes from './routes.js'
import admin from './admin.js'
import { components } from './docs.js'
import { migrations } from './migrations/index.js'

export const manifest: FeatureManifest = {
  name: 'news',
  tag: 'News',
  adminRights: GAME_RIGHTS,
  tables: ['news'],
  migrations,
  caches: ['news'],
}

export default defineFeature(
  manifest,
  async (app) => {
    // One copy per app, shared by both halves: an admin write refreshes the copy the players read.
    const cache = new ContentCache(app.db, app.clock, 'news', loadNews, {
      onLookup: app.metrics.cacheLookup('news'),
    })
    app.openapi.describe({}, components)
    await app.register(routes, { prefix: APP_PREFIX, cache })
    await app.register(adminRoutes(manifest, admin), { prefix: ADMIN_PREFIX, cache })
  },
  ['db', 'clock', 'metrics'],
)
