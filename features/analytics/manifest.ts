import type { FeatureManifest } from '../../platform/core/features.js'
import { migrations } from './migrations/index.js'

export const manifest: FeatureManifest = {
  name: 'analytics',
  tag: 'Analytics',
  adminRights: { read: 'viewer', write: 'owner' },
  tables: ['player_activity', 'analytics_daily', 'analytics_days'],
  migrations,
}
