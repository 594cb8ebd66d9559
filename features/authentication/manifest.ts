import type { FeatureManifest } from '../../platform/core/features.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { migrations } from './migrations/index.js'

/** Authentication's tables and its sign-up and sign-in counters, for the platform and its route files. */
export const manifest: FeatureManifest = {
  name: 'authentication',
  tag: 'Authentication',
  adminRights: GAME_RIGHTS,
  tables: ['account_tokens', 'google_codes'],
  migrations,
  counters: {
    signups: {
      name: 'outpost_signups_total',
      help: 'Accounts created, by kind (anonymous, email, apple, google)',
      label: { name: 'kind', values: ['anonymous', 'email', 'apple', 'google'] },
    },
    signins: {
      name: 'outpost_signins_total',
      help: 'Successful sign-ins, by kind (anonymous, email, apple, google, refresh)',
      label: { name: 'kind', values: ['anonymous', 'email', 'apple', 'google', 'refresh'] },
    },
  },
}
