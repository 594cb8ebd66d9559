import fp from 'fastify-plugin'
import { AppError } from './errors.js'
import { isAdminPath, isApiPath } from './paths.js'
import { secretChecker } from './secrets.js'

/**
 * Every app request carries X-API-Key (API.md §1). Checked in onRequest, before routing, so an
 * unknown path without a key is 401 and with a key 404. The admin API has its own key.
 */
export default fp(
  async (app) => {
    const isApiKey = secretChecker(app.config.API_KEY)
    // A callback hook, not an async one: it runs on every request, and a promise per request costs.
    app.addHook('onRequest', (request, _reply, done) => {
      const exempt =
        request.method === 'OPTIONS' ||
        !isApiPath(request.url) ||
        isAdminPath(request.url) ||
        request.routeOptions.config.public === true
      if (exempt || isApiKey(request.headers['x-api-key'])) return done()
      done(new AppError(401, 'UNAUTHORIZED', 'Missing or invalid X-API-Key header'))
    })
  },
  { name: 'api-key', dependencies: ['config', 'errors'] },
)
