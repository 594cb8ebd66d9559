import type { FeatureManifest } from '../../platform/core/features.js'
import { OWNER_RIGHTS } from '../../platform/security/roles.js'
import { migrations } from './migrations/index.js'

/** The operators' tables, managed by owners only, for the platform and its route files. */
export const manifest: FeatureManifest = {
  name: 'operators',
  tag: 'Operators',
  adminRights: OWNER_RIGHTS,
  tables: ['operators', 'operator_sessions'],
  migrations,
}
