import type { FeatureManifest } from '../../platform/core/features.js'
import { OWNER_RIGHTS } from '../../platform/security/roles.js'

/**
 * MINIMAL STAND-IN (the games helper's manifest.ts replaces it at merge): the games' admin routes,
 * owners only, no table of their own (the games and keys are the platform's).
 */
export const manifest: FeatureManifest = { name: 'games', tag: 'Admin · Games', adminRights: OWNER_RIGHTS, tables: [] }
