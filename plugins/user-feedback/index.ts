// User feedback: bug reports, feature requests and general notes from players. Answers
// the JSON string "ok" (compat). User-scoped when a userId (or a bearer) comes with it, so nobody files
// feedback as someone else; anonymous when neither does (the SDKs drop userId when nobody is signed in).
import fp from 'fastify-plugin'
import { ADMIN_PREFIX, APP_PREFIX } from '../core/paths.js'
import routes from './routes.js'
import admin from './admin.js'
import { components, docs } from './docs.js'

export default fp(
  async (app) => {
    app.openapi.describe(docs, components)
    await app.register(routes, { prefix: APP_PREFIX })
    await app.register(admin, { prefix: ADMIN_PREFIX })
  },
  { name: 'user-feedback', dependencies: ['db', 'clock', 'sessions'] },
)
