// Authentication: anonymous, e-mail, Apple and Google accounts and their sessions. Tokens are
// random, returned once and stored only as SHA-256 digests (passwords as scrypt hashes); a user may
// hold several sessions; refresh tokens rotate and a replayed one revokes its whole family. One user
// per Apple or Google account, settled by a primary key.
import { defineFeature, type FeatureManifest } from '../../platform/core/features.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { APP_PREFIX } from '../../platform/core/paths.js'
import type { AuthDeps } from './service.js'
import routes from './routes.js'
import { components } from './docs.js'
import { createSocialSettings } from './social.js'
import { SIGN_IN_SWEEP } from './sweeps.js'
import { migrations } from './migrations/index.js'

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

export default defineFeature(
  manifest,
  async (app) => {
    const deps: AuthDeps = {
      db: app.db,
      now: () => app.clock.now(),
      lifetimes: {
        sessionTtlMs: app.config.SESSION_TTL_SECONDS * 1000,
        refreshTtlMs: app.config.REFRESH_TTL_SECONDS * 1000,
      },
      email: { enabled: Boolean(app.config.SMTP_URL), publicUrl: app.config.PUBLIC_URL },
      social: createSocialSettings(
        app.config,
        () => app.clock.now(),
        (message) => app.log.warn(message),
      ),
    }
    app.jobs.add(SIGN_IN_SWEEP)
    app.openapi.describe({}, components)
    await app.register(routes, { prefix: APP_PREFIX, deps })
  },
  ['db', 'clock', 'config', 'metrics', 'jobs'],
)
