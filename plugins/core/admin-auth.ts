import fp from 'fastify-plugin'
import { AppError } from './errors.js'
import { surfaceOf } from './paths.js'
import { secretChecker } from './secrets.js'

/**
 * The admin API answers only to X-Admin-Key; the app key is never accepted there. The
 * gate is the matched route's surface, so no spelling of the path gets around it. While
 * ADMIN_API_KEY is unset the admin API is absent: 404 for every admin path, key or no key.
 * Admin calls are limited per credential once it is checked, and per IP before.
 */
export default fp(
  async (app) => {
    const expected = app.config.ADMIN_API_KEY
    const isAdminKey = expected ? secretChecker(expected) : () => false
    app.addHook('onRequest', async (request, reply) => {
      if (surfaceOf(request) !== 'admin') return
      const valid = isAdminKey(request.headers['x-admin-key'])
      await app.limitAdmin(request, reply, valid ? 'admin-key' : null)
      if (!expected) throw new AppError(404, 'NOT_FOUND', 'The admin API is off: set ADMIN_API_KEY to turn it on')
      if (!valid)
        throw new AppError(401, 'UNAUTHORIZED', 'Missing or invalid X-Admin-Key header: send the ADMIN_API_KEY')
    })
  },
  { name: 'admin-auth', dependencies: ['config', 'errors', 'surfaces', 'rate-limit'] },
)
