import type { FeatureManifest } from '../../platform/core/features.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { migrations } from './migrations/index.js'

/** The news table and cache, for the platform and its route files. */
export const manifest: FeatureManifest = {
  name: 'news',
  tag: 'News',
  adminRights: GAME_RIGHTS,
  tables: ['news'],
  migrations,
  caches: ['news'],
}
