import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { surfaceOf } from '../core/paths.js'
import { namedGame } from '../games/paths.js'
import type { Game } from '../games/registry.js'

/**
 * CORS, per game (contract §1 and §14): each game allows the browser origins of its settings'
 * `corsOrigins` (CORS_ORIGINS unless it set its own; `*` for any).
 *
 * - A preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) carries no API key,
 *   so it cannot name its game: it is answered 204, before the rate limit and the key, for an origin
 *   that some game allows (`*` when any game allows any), with the methods, request headers and max
 *   age below.
 * - Any other request is answered `Access-Control-Allow-Origin` only for an origin its own game
 *   allows: the game its `X-API-Key` names (app API) or its admin path names (admin API), decided
 *   here in memory as the later gates decide it. A request that names no game (a missing or unknown
 *   key, the health and docs routes) is answered as a preflight is, so a browser can read the 401
 *   that tells it to fix its key.
 *
 * A request without `Origin` (every native build) looks up no game: it gets the expose list and
 * `Vary: Origin`, no Access-Control-Allow-Origin.
 */

const METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS'
// Every request header a client of the contract sends (contract §1): a header missing here makes the
// browser refuse the request before it leaves, e.g. the Unity SDK's conditional cloud save (If-Match)
// in WebGL builds.
const ALLOWED_HEADERS = [
  'Content-Type',
  'Authorization',
  'X-API-Key',
  'X-Admin-Key',
  'If-Match',
  'If-None-Match',
  'Accept',
  'X-Request-Id',
  'X-Requested-With',
].join(', ')
const EXPOSED_HEADERS = [
  'ETag',
  'Retry-After',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'X-Cloud-Save-Revision',
  'X-Request-Id',
].join(', ')
/** How long a browser may keep a preflight's answer (seconds). */
const MAX_AGE = '600'

/** The origins some game allows: `*` when one allows any. */
function unionOf(games: readonly Game[]): readonly string[] {
  const origins = new Set<string>()
  for (const game of games) {
    if (game.settings.corsOrigins.includes('*')) return ['*']
    for (const origin of game.settings.corsOrigins) origins.add(origin)
  }
  return [...origins]
}

/** Sets Access-Control-Allow-Origin for `origin` under `allowed`, and Vary when the answer depends on it. */
function allowOrigin(reply: FastifyReply, allowed: readonly string[], origin: string | undefined): void {
  if (allowed.includes('*')) {
    reply.header('access-control-allow-origin', '*')
    return
  }
  reply.header('vary', 'Origin')
  if (origin !== undefined && allowed.includes(origin)) reply.header('access-control-allow-origin', origin)
}

/** Adds the CORS hook (first of the onRequest hooks after logging: see app.ts) and the preflight route. */
export function registerCors(app: FastifyInstance): void {
  const { games } = app

  /** The game a request names, without refusing anything (the gates do that later). */
  const gameOf = (request: FastifyRequest): Game | undefined => {
    const surface = surfaceOf(request)
    if (surface === 'app') return games.forKey(request.headers['x-api-key'])
    if (surface === 'admin') {
      const id = namedGame(request.raw)
      return id === undefined ? games.default : games.get(id)
    }
    return undefined
  }

  // A callback hook: it runs on every request, and a promise per request costs.
  app.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin
    reply.header('access-control-expose-headers', EXPOSED_HEADERS)
    if (request.method === 'OPTIONS') {
      allowOrigin(reply, unionOf(games.list()), origin)
      if (!origin || !request.headers['access-control-request-method']) {
        reply.status(400).type('text/plain').send('Invalid Preflight Request')
        return
      }
      reply
        .header('access-control-allow-methods', METHODS)
        .header('access-control-allow-headers', ALLOWED_HEADERS)
        .header('access-control-max-age', MAX_AGE)
        // Safari waits for a body on a 204 without a length.
        .header('content-length', '0')
        .code(204)
        .send()
      return
    }
    if (origin === undefined) {
      // Not a browser's cross-origin request: no game to look up. A cache must not hand this answer
      // (without Access-Control-Allow-Origin) to a browser's request.
      reply.header('vary', 'Origin')
      return done()
    }
    const game = gameOf(request)
    allowOrigin(reply, game ? game.settings.corsOrigins : unionOf(games.list()), origin)
    done()
  })

  // Routes every OPTIONS request; the hook above answers it before any handler runs.
  app.options('*', { schema: { hide: true } }, (_request, reply) => {
    reply.callNotFound()
  })
}
