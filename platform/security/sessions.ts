import fp from 'fastify-plugin'
import type { FastifyRequest, preHandlerAsyncHookHandler, preHandlerHookHandler } from 'fastify'
import { AppError, badRequest } from '../core/errors.js'
import { assertActive, resolveAccessToken, userStanding, type ResolvedSession } from './session-store.js'
import { BAN_IDLE_MS, BAN_POLL_MS, BannedPlayers, type BanLog } from './banned-players.js'
import type { PerGame } from '../games/registry.js'
import { continueWithinDeadline } from '../../db/pool-bounds.js'

/**
 * A request that has spent this share of DB_QUERY_TIMEOUT_MS by the time its session (or the
 * player's standing) has been read goes on with what is left of the bound (`afterSession` below).
 * Under it, as on every request of a healthy database, the handler keeps a whole bound: the
 * deadline costs every await of the request on Node 20 (db/pool-bounds.ts), so it is taken only
 * when the database has already held the request.
 */
const HELD_SHARE = 0.05

/**
 * Who is calling. Two preHandlers, run after validation:
 * - `sessionRequired`: a valid bearer session for the named user, in both auth modes;
 * - `userScoped`: in compat mode `userId` alone is enough (the Unity SDK sends no bearer on most
 *   calls), but a bearer that is sent must be valid and the user's; in strict mode as above.
 * Both refuse a banned user with 403 USER_BANNED. The identity lands on `request.identity`.
 * Without a session the ban is first looked up in memory (banned-players.ts, contract §1.2 revision 4).
 */
export interface Identity {
  userId: string
  sessionId: string | null
  /** False when the route's handler still has to check that the user exists and is not banned. */
  checked?: boolean
}

declare module 'fastify' {
  interface FastifyRequest {
    identity: Identity | null
  }
  interface FastifyInstance {
    auth: { sessionRequired: preHandlerAsyncHookHandler; userScoped: preHandlerAsyncHookHandler }
    /** The banned players in memory, per game: the users feature reports its ban, unban and delete writes to it. */
    bannedPlayers: PerGame<BannedPlayers>
  }
  interface FastifyContextConfig {
    /** The hosted form of this route takes `sessionToken` in the body (check-auth, change-name). */
    sessionInBody?: boolean
    /**
     * Checks of the request that its schema cannot express (a length after trimming, a serialized
     * size). They are validation, so they run right after the schema and before any session or
     * existence check: a bad body without a session is 400, not 401.
     */
    validate?: (request: FastifyRequest) => void
    /**
     * The handler's first statement reads whether the named user exists and is banned, and answers
     * 404 USER_NOT_FOUND / 403 USER_BANNED itself (before anything else): `userScoped` without a
     * session then leaves `identity.checked` false instead of reading the user on its own.
     */
    standingInHandler?: boolean
    /**
     * The handler's own statement decides whether the named user exists: a row referencing the user
     * through a foreign key (`forExistingUser` answers its refusal with 404 USER_NOT_FOUND), or a read
     * whose empty answer is the route's answer for an unknown user too (cloud-save load). `userScoped`
     * without a session then checks only the ban, in memory, and reads nothing. Set it only where no
     * feature error can come before that statement, so USER_NOT_FOUND still comes first.
     */
    userInStatement?: boolean
  }
}

type Carrier = { userId?: unknown; sessionToken?: unknown } | undefined

/** The bearer token, or on routes whose hosted form has it, `sessionToken` from the body. */
export function presentedToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
    if (match) return match[1]
  }
  if (request.routeOptions.config.sessionInBody) {
    const token = (request.body as Carrier)?.sessionToken
    if (typeof token === 'string' && token !== '') return token
  }
  return undefined
}

/** The `userId` the request names, from the body or the query string. */
export function namedUserId(request: FastifyRequest): string | undefined {
  const fromBody = (request.body as Carrier)?.userId
  if (typeof fromBody === 'string' && fromBody !== '') return fromBody
  const fromQuery = (request.query as Carrier)?.userId
  return typeof fromQuery === 'string' && fromQuery !== '' ? fromQuery : undefined
}

const sessionRequiredError = (message: string) => new AppError(401, 'SESSION_REQUIRED', message)

function assertSessionFor(session: ResolvedSession, userId: string | undefined): Identity {
  if (session.status === 'UNKNOWN') throw sessionRequiredError('The session token is not valid')
  if (session.status === 'EXPIRED') throw sessionRequiredError('The session has expired; sign in again')
  if (session.status === 'REVOKED') throw sessionRequiredError('The session has been revoked; sign in again')
  if (userId !== undefined && session.userId !== userId) {
    throw new AppError(403, 'SESSION_FORBIDDEN', 'The session belongs to another user')
  }
  if (session.banned) throw new AppError(403, 'USER_BANNED', 'This account is banned')
  return { userId: session.userId!, sessionId: session.sessionId! }
}

export default fp(
  async (app) => {
    const { clock } = app
    // Each request's game decides its mode (contract §14: `settings.authMode`, the environment's
    // AUTH_MODE unless the game set its own), read per request: a game's change holds at once.
    const isStrict = (request: FastifyRequest) => request.game.settings.authMode === 'strict'
    app.decorateRequest('identity', null)
    // Only compat mode reads it (a session carries the ban in its own query), and any game may be in
    // compat mode at any time, so each game's is kept. A game's set starts loading on the game's first
    // request, `default`'s before the first request of all; until it is loaded (or should loading
    // fail), requests read the ban from the database. Another game's set rests after BAN_IDLE_MS
    // without a request (no poll; its next request reads the database and wakes it). Stopped with
    // its game.
    const bannedPlayers = app.games.scoped(
      (game) => {
        const log: BanLog = {
          warn: (details, message) => app.log.warn({ ...details, game: game.id }, message),
          info: (message) => app.log.info({ game: game.id }, message),
        }
        const bans = new BannedPlayers(
          game.db,
          log,
          BAN_POLL_MS,
          game.id === app.games.default.id ? undefined : BAN_IDLE_MS,
        )
        void bans.start()
        return bans
      },
      { dispose: (bans) => bans.stop() },
    )
    await bannedPlayers.of(app.games.default).start()
    app.decorate('bannedPlayers', bannedPlayers)
    if (app.config.AUTH_MODE !== 'strict') {
      // The game's API key ships in every build: the operator must know what compat mode lets it do.
      app.log.warn(
        "AUTH_MODE=compat: anyone holding the game's API key can write any player's save, scores, logs and more by userId " +
          '(no session needed on user-scoped endpoints). Set AUTH_MODE=strict if your game clients send sessions; ' +
          'see docs/security.md.',
      )
    }

    async function requireSession(request: FastifyRequest) {
      const token = presentedToken(request)
      if (!token) throw sessionRequiredError('A session is required: send Authorization: Bearer <accessToken>')
      request.identity = assertSessionFor(
        await resolveAccessToken(request.db, token, clock.now()),
        namedUserId(request),
      )
    }

    const sessionRequired: preHandlerAsyncHookHandler = async (request) => requireSession(request)

    const userScoped: preHandlerAsyncHookHandler = async (request) => {
      if (isStrict(request) || presentedToken(request)) return requireSession(request)
      const userId = namedUserId(request)
      if (!userId) throw badRequest('userId is required', '/userId')
      if (request.routeOptions.config.standingInHandler) {
        request.identity = { userId, sessionId: null, checked: false }
        return
      }
      const banned = bannedPlayers.of(request.game).lookup(userId)
      if (banned !== undefined) {
        if (banned) assertActive('BANNED')
        if (request.routeOptions.config.userInStatement) {
          request.identity = { userId, sessionId: null }
          return
        }
      }
      assertActive(await userStanding(request.db, userId))
      request.identity = { userId, sessionId: null }
    }

    app.decorate('auth', { sessionRequired, userScoped })

    // After the session hooks: a request whose session read was held (behind a full pool, by a
    // stalled or failing-over database) has only the rest of DB_QUERY_TIMEOUT_MS for its handler's
    // waits on the database, so the two parts together stay within one bound.
    const boundMs = app.config.DB_QUERY_TIMEOUT_MS
    const afterSession: preHandlerHookHandler = (_request, reply, done) => {
      const spentMs = reply.elapsedTime
      if (spentMs < boundMs * HELD_SHARE) return done()
      const end = continueWithinDeadline(performance.now() + boundMs - spentMs, done)
      reply.raw.once('close', end)
    }

    // The route's validation ahead of its own preHandlers, where the session hooks sit (one place
    // keeps the order), and the deadline check after them.
    app.addHook('onRoute', (route) => {
      const own =
        route.preHandler === undefined ? [] : Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler]
      const readsSession = own.some((hook) => hook === sessionRequired || hook === userScoped)
      const validate = route.config?.validate
      if (!validate && !readsSession) return
      const hooks = [...own]
      if (validate) {
        hooks.unshift((request, _reply, done) => {
          try {
            validate(request)
          } catch (error) {
            return done(error as Error)
          }
          done()
        })
      }
      if (readsSession) hooks.push(afterSession)
      route.preHandler = hooks
    })
  },
  { name: 'sessions', dependencies: ['db', 'clock', 'errors', 'game-registry'] },
)
