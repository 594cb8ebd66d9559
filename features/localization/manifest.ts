import type { FeatureManifest } from '../../platform/core/features.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { migrations } from './migrations/index.js'

/** Localization's table and cache, for the platform and its route files. */
export const manifest: FeatureManifest = {
  name: 'localization',
  tag: 'Localization',
  adminRights: GAME_RIGHTS,
  tables: ['localizations'],
  migrations,
  caches: ['localization'],
}
