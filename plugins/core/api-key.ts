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
    app.addHook('onRequest', async (request) => {
      if (request.method === 'OPTIONS' || !isApiPath(request.url) || isAdminPath(request.url)) return
      if (request.routeOptions.config.public) return
      if (!isApiKey(request.headers['x-api-key'])) {
        throw new AppError(401, 'UNAUTHORIZED', 'Missing or invalid X-API-Key header')
      }
    })
  },
  { name: 'api-key', dependencies: ['config', 'errors'] },
)
