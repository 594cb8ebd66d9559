import type { FeatureManifest } from '../../platform/core/features.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { PlayerBannedEventSchema } from './schemas.js'
import { migrations } from './migrations/index.js'

/** The users' tables and the player-banned event, for the platform and its route files. */
export const manifest: FeatureManifest = {
  name: 'users',
  tag: 'Users',
  adminRights: GAME_RIGHTS,
  tables: ['users', 'user_identities'],
  events: [
    { type: 'player.banned', title: 'Player banned', payload: PlayerBannedEventSchema, after: 'gift_code.exhausted' },
  ],
  migrations,
}
