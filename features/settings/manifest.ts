import type { FeatureManifest } from '../../platform/core/features.js'
import { OWNER_RIGHTS } from '../../platform/security/roles.js'

/** Settings: no table (it shows the configuration in effect), owners only, for the platform and its route files. */
export const manifest: FeatureManifest = { name: 'settings', tag: 'Settings', adminRights: OWNER_RIGHTS, tables: [] }
