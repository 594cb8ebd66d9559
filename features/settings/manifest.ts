import type { FeatureManifest } from '../../platform/core/features.js'
import { OWNER_RIGHTS } from '../../platform/security/roles.js'

export const manifest: FeatureManifest = { name: 'settings', tag: 'Settings', adminRights: OWNER_RIGHTS, tables: [] }
