import { adminRoutes, defineFeature } from '../../platform/core/features.js'
import { ADMIN_PREFIX } from '../../platform/core/paths.js'
import { anyOperator, PASSWORD_MIN, resolveSession } from './service.js'
import sessionRoutes from './session.js'
import admin from './admin.js'
import { OPERATOR_SESSION_SWEEP } from './sweeps.js'
import { components } from './docs.js'
import { manifest } from './manifest.js'

const CREATE_OPERATOR =
  `\`npm run operator -- add NAME --role owner\` (it asks for a password of at least ${PASSWORD_MIN} characters, ` +
  'or reads OPERATOR_PASSWORD)'

/** Logged at start when no operator and no ADMIN_API_KEY can reach the admin API: how to create the first one. */
export const FIRST_OPERATOR_HINT = `The admin API is off: no operator and no ADMIN_API_KEY. Create the first operator with ${CREATE_OPERATOR}`

/** With ADMIN_API_KEY set the admin API answers the key, but nobody can sign in to the console yet. */
export const FIRST_OPERATOR_HINT_WITH_KEY = `No operator yet, so nobody can sign in to the console: create the first one with ${CREATE_OPERATOR}`

export { manifest } from './manifest.js'

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * A password hashed in a route's preHandler, before the request's transaction opens (a hash takes
     * a quarter second): the new hash, and the current one it was checked against, if any.
     */
    preparedPassword: { hash: string; expected: string | null } | null
  }
}

export default defineFeature(
  manifest,
  async (app) => {
    app.decorateRequest('preparedPassword', null)
    // Ended sessions are deleted by a job, not inside a sign-in (sweeps.ts).
    app.jobs.add(OPERATOR_SESSION_SWEEP)
    app.adminAuth.useOperators({
      session: (token) => resolveSession(app.db, token, app.clock.now()),
      anyOperator: () => anyOperator(app.db),
    })
    app.addHook('onReady', async () => {
      // Only a hint: a database slow to answer at this moment must not stop the start.
      if (await anyOperator(app.db).catch(() => true)) return
      app.log.warn(app.config.ADMIN_API_KEY ? FIRST_OPERATOR_HINT_WITH_KEY : FIRST_OPERATOR_HINT)
    })
    app.openapi.describe({}, components)
    await app.register(adminRoutes(manifest, sessionRoutes), { prefix: ADMIN_PREFIX })
    await app.register(adminRoutes(manifest, admin), { prefix: ADMIN_PREFIX })
  },
  ['db', 'clock', 'config', 'admin-auth', 'openapi', 'jobs'],
)
