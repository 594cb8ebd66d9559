import fp from 'fastify-plugin'
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify'
import { AppError } from './errors.js'
import { resolveAccessToken, userStanding, type ResolvedSession } from './session-store.js'

/**
 * Who is calling (API.md §1.2). Two preHandlers, run after validation:
 * - `sessionRequired`: a valid bearer session for the named user, in both auth modes;
 * - `userScoped`: in compat mode `userId` alone is enough (the Unity SDK sends no bearer on most
 *   calls), but a bearer that is sent must be valid and the user's; in strict mode as above.
 * Both refuse a banned user with 403 USER_BANNED. The identity lands on `request.identity`.
 */
export interface Identity {
  userId: string
  sessionId: string | null
}

declare module 'fastify' {
  interface FastifyRequest {
    identity: Identity | null
  }
  interface FastifyInstance {
    auth: { sessionRequired: preHandlerAsyncHookHandler; userScoped: preHandlerAsyncHookHandler }
  }
  interface FastifyContextConfig {
    /** The hosted form of this route takes `sessionToken` in the body (check-auth, change-name). */
    sessionInBody?: boolean
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
    const { db, clock } = app
    const strict = app.config.AUTH_MODE === 'strict'
    app.decorateRequest('identity', null)

    async function requireSession(request: FastifyRequest) {
      const token = presentedToken(request)
      if (!token) throw sessionRequiredError('A session is required: send Authorization: Bearer <accessToken>')
      request.identity = assertSessionFor(await resolveAccessToken(db, token, clock.now()), namedUserId(request))
    }

    const sessionRequired: preHandlerAsyncHookHandler = async (request) => requireSession(request)

    const userScoped: preHandlerAsyncHookHandler = async (request) => {
      if (strict || presentedToken(request)) return requireSession(request)
      const userId = namedUserId(request)
      if (!userId) throw new AppError(400, 'VALIDATION_ERROR', 'userId is required')
      const standing = await userStanding(db, userId)
      if (standing === 'UNKNOWN') throw new AppError(404, 'USER_NOT_FOUND', 'User not found')
      if (standing === 'BANNED') throw new AppError(403, 'USER_BANNED', 'This account is banned')
      request.identity = { userId, sessionId: null }
    }

    app.decorate('auth', { sessionRequired, userScoped })
  },
  { name: 'sessions', dependencies: ['db', 'clock', 'errors'] },
)
