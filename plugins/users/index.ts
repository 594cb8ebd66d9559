// Users: check a session, change the one name, sign out. Names are stored once, on the
// user, so a rename shows everywhere at once; signing out revokes only the presented session.
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
  { name: 'users', dependencies: ['db', 'clock', 'sessions', 'events'] },
)
