// Authentication: anonymous, e-mail, Apple and Google accounts and their sessions. Tokens are
// random, returned once and stored only as SHA-256 digests (passwords as scrypt hashes); a user may
// hold several sessions; refresh tokens rotate and a replayed one revokes its whole family. One user
// per Apple or Google account, settled by a primary key.
import fp from 'fastify-plugin'
import { APP_PREFIX } from '../core/paths.js'
import type { AuthDeps } from './service.js'
import routes from './routes.js'
import { components, docs } from './docs.js'
import { createSocialSettings } from './social.js'
import { SIGN_IN_SWEEP } from './sweeps.js'

export default fp(
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
    app.openapi.describe(docs, components)
    await app.register(routes, { prefix: APP_PREFIX, deps })
  },
  { name: 'authentication', dependencies: ['db', 'clock', 'config', 'metrics', 'jobs'] },
)
