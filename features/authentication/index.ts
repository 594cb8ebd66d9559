import { defineFeature } from '../../platform/core/features.js'
import { APP_PREFIX } from '../../platform/core/paths.js'
import type { AppAuthDeps } from './service.js'
import routes from './routes.js'
import { components } from './docs.js'
import { createSocialSettings } from './social.js'
import { SIGN_IN_SWEEP } from './sweeps.js'
import { manifest } from './manifest.js'

export { manifest } from './manifest.js'

export default defineFeature(
  manifest,
  async (app) => {
    // The database is the request's game's, given with each call (routes.ts).
    const deps: Omit<AppAuthDeps, 'db'> = {
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
