import fp from 'fastify-plugin'
import { AppError } from '../core/errors.js'
import { surfaceOf } from '../core/paths.js'
import { secretChecker } from './secrets.js'

/**
 * Every app request carries X-API-Key. Checked in onRequest, before the body is read,
 * on the matched route's surface, so an unknown path without a key is 401 and with a key 404. The
 * admin API has its own key (admin-auth.ts); the app key opens nothing there.
 */
export default fp(
  async (app) => {
    const isApiKey = secretChecker(app.config.API_KEY)
    // A callback hook, not an async one: it runs on every request, and a promise per request costs.
    app.addHook('onRequest', (request, _reply, done) => {
      if (surfaceOf(request) !== 'app' || isApiKey(request.headers['x-api-key'])) return done()
      done(new AppError(401, 'UNAUTHORIZED', "Missing or invalid X-API-Key header: send the game's API_KEY"))
    })
  },
  { name: 'api-key', dependencies: ['config', 'errors', 'surfaces', 'rate-limit'] },
)
