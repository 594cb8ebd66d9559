import fp from 'fastify-plugin'
import { AppError } from './errors.js'
import { isAdminPath } from './paths.js'
import { secretEquals } from './secrets.js'

/**
 * The admin API (API.md §8) answers only to X-Admin-Key; the app key is never accepted there. When
 * ADMIN_API_KEY is unset the admin routes are not registered at all, so every admin path is 404.
 */
export default fp(
  async (app) => {
    const expected = app.config.ADMIN_API_KEY
    if (!expected) return
    app.addHook('onRequest', async (request) => {
      if (request.method === 'OPTIONS' || !isAdminPath(request.url)) return
      const presented = request.headers['x-admin-key']
      if (!secretEquals(Array.isArray(presented) ? presented[0] : presented, expected)) {
        throw new AppError(401, 'UNAUTHORIZED', 'Missing or invalid X-Admin-Key header')
      }
    })
  },
  { name: 'admin-auth', dependencies: ['config', 'errors'] },
)
