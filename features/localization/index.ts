// Localization: translated strings by key or all at once, with the fallback chain
// `pt-BR` → `pt` → DEFAULT_LANGUAGE. Served from an in-process copy; an admin write shows at once on
// its own instance and within CONTENT_CHECK_INTERVAL_MS (1 s) on every other one.
import { adminRoutes, defineFeature, type FeatureManifest } from '../../platform/core/features.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { ContentCache } from '../../platform/content/content-cache.js'
import { canonicalLanguageTag } from '../../platform/content/language-tag.js'
import { ADMIN_PREFIX, APP_PREFIX } from '../../platform/core/paths.js'
import { loadLocalization } from './service.js'
import routes from './routes.js'
import admin from './admin.js'
import { components } from './docs.js'
import { migrations } from './migrations/index.js'

export const manifest: FeatureManifest = {
  name: 'localization',
  tag: 'Localization',
  adminRights: GAME_RIGHTS,
  tables: ['localizations'],
  migrations,
  caches: ['localization'],
}

export default defineFeature(
  manifest,
  async (app) => {
    const defaultLanguage = canonicalLanguageTag(app.config.DEFAULT_LANGUAGE) ?? app.config.DEFAULT_LANGUAGE
    // One copy per app, shared by both halves: an admin write refreshes the copy the players read.
    const cache = new ContentCache(app.db, app.clock, 'localization', loadLocalization(defaultLanguage), {
      onLookup: app.metrics.cacheLookup('localization'),
    })
    app.openapi.describe({}, components)
    await app.register(routes, { prefix: APP_PREFIX, cache, defaultLanguage })
    await app.register(adminRoutes(manifest, admin), { prefix: ADMIN_PREFIX, cache })
  },
  ['db', 'clock', 'config', 'metrics'],
)
