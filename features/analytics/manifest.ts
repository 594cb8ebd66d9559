import type { FeatureManifest } from '../../platform/core/features.js'
import { migrations } from './migrations/index.js'

/** Analytics' tables and rights (every role reads, owners write), for the platform and its route files. */
export const manifest: FeatureManifest = {
  name: 'analytics',
  tag: 'Analytics',
  adminRights: { read: 'viewer', write: 'owner' },
  tables: ['player_activity', 'analytics_daily', 'analytics_days'],
  migrations,
}
