import fp from 'fastify-plugin'
import { AppError } from './errors.js'
import { isAdminPath } from './paths.js'
import { secretChecker } from './secrets.js'

/**
 * The admin API (API.md §8) answers only to X-Admin-Key; the app key is never accepted there. When
 * ADMIN_API_KEY is unset the admin routes are not registered at all, so every admin path is 404.
 */
export default fp(
  async (app) => {
    const expected = app.config.ADMIN_API_KEY
    if (!expected) return
    const isAdminKey = secretChecker(expected)
    app.addHook('onRequest', (request, _reply, done) => {
      if (request.method === 'OPTIONS' || !isAdminPath(request.url) || isAdminKey(request.headers['x-admin-key'])) {
        return done()
      }
      done(new AppError(401, 'UNAUTHORIZED', 'Missing or invalid X-Admin-Key header'))
    })
  },
  { name: 'admin-auth', dependencies: ['config', 'errors'] },
)
