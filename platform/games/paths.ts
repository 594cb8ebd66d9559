import type { IncomingMessage } from 'node:http'
import { ADMIN_PREFIX } from '../core/paths.js'

/**
 * The admin API of one game (contract §14): every admin route is also served under
 * `/api/v1/admin/games/{gameId}/…`, for that game, and the route without the prefix is the
 * `default` game's. The prefix is taken off before routing (Fastify's `rewriteUrl`), so each route is
 * declared and matched once; the game it named rides on the request to the admin gate
 * (platform/security/admin-auth.ts), which refuses an unknown one (404 GAME_NOT_FOUND). The games'
 * own routes (`/games/{gameId}`, its `keys`, `settings` and `copy-from`) are routes themselves.
 */

/** The game a request's path named, kept on the raw request by `rewriteGamePath`. */
const NAMED_GAME = Symbol('outpost.game')

const PREFIXED = new RegExp(`^/+${ADMIN_PREFIX.slice(1)}/+games/+([^/?#]+)/+([^?#]*)([?#].*)?$`)
/**
 * Below a game's prefix, the games' own routes stay as they are, and the server-wide ones (the
 * operators, an operator's session) are not served: they belong to no game.
 */
const OWN_ROUTES = /^(keys|settings|copy-from|games|operators|session)(\/|$)/

/** Fastify's `rewriteUrl`: a game's admin path becomes the route's own path, the game kept aside. */
export function rewriteGamePath(request: IncomingMessage): string {
  const url = request.url ?? '/'
  const match = url.length > 20 && PREFIXED.exec(url)
  if (!match || match[2] === '' || OWN_ROUTES.test(match[2]!)) return url
  ;(request as IncomingMessage & { [NAMED_GAME]?: string })[NAMED_GAME] = match[1]
  return `${ADMIN_PREFIX}/${match[2]}${match[3] ?? ''}`
}

/** The game a request's admin path named (undefined: the un-prefixed route, `default`'s). */
export function namedGame(request: IncomingMessage): string | undefined {
  return (request as IncomingMessage & { [NAMED_GAME]?: string })[NAMED_GAME]
}
