import type { FeatureManifest } from '../../platform/core/features.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { migrations } from './migrations/index.js'

/** Remote config's table and cache, for the platform and its route files. */
export const manifest: FeatureManifest = {
  name: 'remote-config',
  tag: 'Remote Config',
  adminRights: GAME_RIGHTS,
  tables: ['remote_configs'],
  migrations,
  caches: ['remote-config'],
}
