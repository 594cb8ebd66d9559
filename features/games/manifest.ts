import type { FeatureManifest } from '../../platform/core/features.js'
import { OWNER_RIGHTS } from '../../platform/security/roles.js'

/**
 * The games of the server, their app keys and settings (contract §14): owners only, but for the list
 * and a game's own row, which any operator reads for the games they hold a role in (admin-access.ts).
 * No table of its own: platform/games/store.ts owns `games` and `game_keys`.
 */
export const manifest: FeatureManifest = { name: 'games', tag: 'Games', adminRights: OWNER_RIGHTS, tables: [] }
