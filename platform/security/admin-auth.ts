import fp from 'fastify-plugin'
import { fastifyCookie } from '@fastify/cookie'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from '../core/errors.js'
import { ADMIN_PREFIX, surfaceOf } from '../core/paths.js'
import { secretChecker } from './secrets.js'
import { featureOf } from '../core/features.js'
import { adminAction, allows, decideAccess, type AdminAccess, type Role } from './admin-access.js'
import { audited, type AdminActor } from './audit.js'
import { DEFAULT_GAME } from '../../db/games.js'
import { namedGame } from '../games/paths.js'
import { gameNotFound } from '../games/store.js'

/** An operator's role in a game: `owner` everywhere, else the role it was given there (none: undefined). */
export function roleIn(actor: Pick<AdminActor, 'role' | 'roles'>, gameId: string): Role | undefined {
  if (actor.role === 'owner') return 'owner'
  if (actor.roles) return actor.roles[gameId]
  return gameId === DEFAULT_GAME ? actor.role : undefined
}

/** The games' own routes (features/games/), below which `:gameId` names the game a route is for. */
const GAMES_ROUTES = `${ADMIN_PREFIX}/games`

/** The console's session cookie; sent back only to the admin API. */
export const SESSION_COOKIE = 'outpost_session'
/** The cookie is sent only to the admin API, never to the game API or the console's files. */
export const SESSION_COOKIE_PATH = ADMIN_PREFIX
/** The header a console write must carry (a cross-site form or image cannot set it). */
export const CSRF_HEADER = 'x-requested-with'
/** The value CSRF_HEADER must carry, named so the refusal can tell a script what to send. */
export const CSRF_VALUE = 'outpost-console'
/** How long "an operator exists" is believed once seen (an absent one is asked again every time). */
const OPERATOR_EXISTS_TTL_MS = 5000

/** What the operators feature lends admin-auth: sessions and whether anyone can sign in at all. */
export interface OperatorCredentials {
  /** The operator a session token belongs to, or null (unknown, expired, revoked); keeps it alive. */
  session(token: string): Promise<{
    operatorId: string
    sessionId: string
    username: string
    role: Role
    /** A non-owner's role in each game it holds one in (contract §14); absent for an owner. */
    roles?: Readonly<Record<string, 'moderator' | 'viewer'>>
  } | null>
  /** True when at least one operator exists. */
  anyOperator(): Promise<boolean>
}

declare module 'fastify' {
  interface FastifyInstance {
    adminAuth: {
      /** Called once by the operators feature while it registers. */
      useOperators(credentials: OperatorCredentials): void
      /** Every admin route registered so far, with the permission the map gave it. */
      readonly routes: ReadonlyArray<{ method: string; url: string; access: AdminAccess }>
    }
  }
  interface FastifyContextConfig {
    /** Set on every admin route when it is registered, from the permission map (admin-access.ts). */
    adminAccess?: AdminAccess
  }
}

/**
 * The admin API's gate. A request shows a credential: X-Admin-Key (acts as an
 * owner) or the console's session cookie (an operator, with a role). The matched route's permission
 * (decided once, at registration, by the one map in admin-access.ts) says which roles may call it;
 * a write made with the cookie also needs `X-Requested-With: outpost-console` (CSRF). The admin API
 * exists while ADMIN_API_KEY is set or an operator exists (asked per request, so an operator added
 * from the command line opens it): otherwise 404 for every admin path. Admin calls are limited per
 * credential once it is checked (per operator for sessions), and per IP before. Admin writes
 * are wrapped so that each runs in one transaction with its audit entry (audit.ts).
 */
export default fp(
  async (app) => {
    const expected = app.config.ADMIN_API_KEY
    const isAdminKey = expected ? secretChecker(expected) : () => false
    let operators: OperatorCredentials | null = null
    let operatorSeenAt = -Infinity

    const routes: Array<{ method: string; url: string; access: AdminAccess }> = []
    app.decorate('adminAuth', {
      useOperators(credentials: OperatorCredentials) {
        operators = credentials
      },
      routes,
    })

    async function anyOperator(): Promise<boolean> {
      if (!operators) return false
      if (performance.now() - operatorSeenAt < OPERATOR_EXISTS_TTL_MS) return true
      const exists = await operators.anyOperator()
      if (exists) operatorSeenAt = performance.now()
      return exists
    }

    async function identify(request: FastifyRequest): Promise<AdminActor | null> {
      if (isAdminKey(request.headers['x-admin-key'])) {
        return { name: 'admin-key', role: 'owner', via: 'key', operatorId: null, sessionId: null }
      }
      // Parsed here, on the admin surface only: @fastify/cookie's hooks would run on every app request
      // too. It is registered where cookies are set (the session routes).
      const header = request.headers.cookie
      const token = header ? fastifyCookie.parse(header)[SESSION_COOKIE] : undefined
      if (!operators || !token) return null
      const session = await operators.session(token)
      if (!session) return null
      operatorSeenAt = performance.now()
      return {
        name: session.username,
        role: session.role,
        ...(session.roles && { roles: session.roles }),
        via: 'session',
        operatorId: session.operatorId,
        sessionId: session.sessionId,
      }
    }

    // Every admin route gets its permission now, or the app does not start: no route goes undecided.
    // `this` is the context the route is registered in: a feature's admin context knows its feature.
    app.addHook('onRoute', function (route) {
      if (route.config?.surface !== 'admin') return
      const methods = Array.isArray(route.method) ? route.method : [route.method]
      const rights = featureOf(this)?.adminRights ?? null
      const decided = methods.map((method) => decideAccess(method, route.url, rights))
      const access = decided[0]
      if (!access || decided.some((other) => JSON.stringify(other) !== JSON.stringify(access))) {
        throw new Error(
          `Admin route ${methods.join(',')} ${route.url} has no permission: register it through ` +
            'adminRoutes(manifest, ...) from platform/core/features.ts, or list it in ROUTE_RIGHTS in platform/security/admin-access.ts',
        )
      }
      route.config = { ...route.config, adminAccess: access }
      for (const method of methods) routes.push({ method, url: route.url, access })
      if (access.audit) {
        route.handler = audited(route.handler, adminAction(methods[0], route.url), { now: () => app.clock.now() })
      }
    })

    /**
     * The game the admin path named (`default` without the prefix): 404 GAME_NOT_FOUND when it does
     * not exist, or when the operator holds no role in it (an operator sees only their games). One's
     * own session (`any` routes) needs no role in `default`. The games' own routes
     * (`/games/{gameId}…`, features/games/) run in the server's database, `default`'s, with the role
     * held in the game they name; an owner reaches one being erased too (its DELETE finishes it).
     */
    const gameOf = (request: FastifyRequest, actor: AdminActor, access: AdminAccess | undefined) => {
      const named = namedGame(request.raw)
      const url = request.routeOptions.url ?? ''
      if (named === undefined && (url === GAMES_ROUTES || url.startsWith(`${GAMES_ROUTES}/`))) {
        const own = (request.params as { gameId?: unknown } | undefined)?.gameId
        if (typeof own !== 'string') return app.games.default
        const role = roleIn(actor, own)
        if (!role || (role !== 'owner' && !app.games.get(own))) throw gameNotFound(own)
        actor.role = role
        return app.games.default
      }
      const id = named ?? DEFAULT_GAME
      const game = app.games.get(id)
      const role = game && roleIn(actor, id)
      if (!role) {
        if (named === undefined && (access?.role === 'any' || access?.role === 'none')) return app.games.default
        throw gameNotFound(id)
      }
      actor.role = role
      return game
    }

    const checkAdmin = async (request: FastifyRequest, reply: FastifyReply) => {
      const actor = await identify(request)
      await app.limitAdmin(
        request,
        reply,
        actor ? (actor.operatorId ? `operator:${actor.operatorId}` : 'admin-key') : null,
      )
      if (!actor && !expected && !(await anyOperator())) {
        throw new AppError(
          404,
          'NOT_FOUND',
          'The admin API is off: set ADMIN_API_KEY, or create an operator (npm run operator -- add NAME --role owner)',
        )
      }
      const access = request.routeOptions.config.adminAccess
      if (access?.role === 'none') return
      if (!actor) {
        throw new AppError(
          401,
          'UNAUTHORIZED',
          'Missing or invalid credential: send X-Admin-Key with the ADMIN_API_KEY, or sign in with POST /api/v1/admin/session',
        )
      }
      request.adminActor = actor
      request.game = gameOf(request, actor, access)
      if (!access) return
      if (actor.via === 'session' && access.write && request.headers[CSRF_HEADER] !== CSRF_VALUE) {
        throw new AppError(
          403,
          'FORBIDDEN',
          `A console write must send the header X-Requested-With: ${CSRF_VALUE}; add it and try again`,
        )
      }
      if (!allows(actor.role, access.role)) {
        throw new AppError(403, 'FORBIDDEN', `The ${actor.role} role may not do this: ask an owner`, {
          role: actor.role,
          requiredRole: access.role,
        })
      }
    }
    // A callback hook that returns at once off the admin surface: an async one would cost every app
    // request a promise.
    app.addHook('onRequest', (request, reply, done) => {
      if (surfaceOf(request) !== 'admin') return done()
      checkAdmin(request, reply).then(() => done(), done)
    })
  },
  { name: 'admin-auth', dependencies: ['config', 'errors', 'surfaces', 'rate-limit', 'clock', 'db', 'game-registry'] },
)
