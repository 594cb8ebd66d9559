import fp from 'fastify-plugin'
import { AppError } from '../core/errors.js'
import { surfaceOf } from '../core/paths.js'
import type { Game } from '../games/registry.js'

/**
 * Every app request carries X-API-Key, and the key decides the request's game (contract §14):
 * `API_KEY` is a key of `default`, every other key one a game was given (platform/games/), looked up
 * in memory. Checked in onRequest, before the body is read, on the matched route's surface, so an
 * unknown path without a key is 401 and with a key 404. The admin API has its own key
 * (admin-auth.ts); the app key opens nothing there.
 */
export default fp(
  async (app) => {
    const { games } = app
    // A callback hook, not an async one: it runs on every request, and a promise per request costs.
    app.addHook('onRequest', (request, _reply, done) => {
      if (surfaceOf(request) !== 'app') return done()
      // The rate limit, when on, has looked the key up already (rate-limit.ts) and left its game here.
      const game = (request.game as Game | null) ?? games.forKey(request.headers['x-api-key'])
      if (game) {
        request.game = game
        return done()
      }
      done(new AppError(401, 'UNAUTHORIZED', "Missing or invalid X-API-Key header: send one of the game's app keys"))
    })
  },
  { name: 'api-key', dependencies: ['config', 'errors', 'surfaces', 'rate-limit', 'game-registry'] },
)
