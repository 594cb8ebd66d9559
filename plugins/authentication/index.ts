// Authentication: anonymous and e-mail accounts and their sessions. Tokens are random,
// returned once and stored only as SHA-256 digests (passwords as scrypt hashes); a user may hold
// several sessions; refresh tokens rotate and a replayed one revokes its whole family.
import fp from 'fastify-plugin'
import { APP_PREFIX } from '../core/paths.js'
import type { AuthDeps } from './service.js'
import routes from './routes.js'
import { components, docs } from './docs.js'

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
      loginSweep: { lastAt: Number.NEGATIVE_INFINITY },
    }
    app.openapi.describe(docs, components)
    await app.register(routes, { prefix: APP_PREFIX, deps })
  },
  { name: 'authentication', dependencies: ['db', 'clock', 'config'] },
)
