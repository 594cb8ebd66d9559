// User logs: short log lines a game sends for one player (INFO, WARN, ERROR), for the
// operator to read. User-scoped; each line is one row, erased with the user.
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
  { name: 'user-logs', dependencies: ['db', 'clock', 'sessions'] },
)
