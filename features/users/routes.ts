// The app routes of users: what the feature guarantees is in index.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { SuccessSchema } from '../../platform/schemas/common.js'
import {
  ChangeNameBodySchema,
  ChangeNameResponseSchema,
  CheckAuthBodySchema,
  CheckAuthResponseSchema,
  SignoutBodySchema,
  type ChangeNameBody,
} from './schemas.js'
import { presentedToken } from '../../platform/security/sessions.js'
import { revokeSession } from '../../platform/security/session-store.js'
import { checkAuth, normalizeName, renameUser } from './service.js'
import { routesOf } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'
import { EX } from '../../platform/openapi/examples.js'

const sessionSecurity = [{ apiKey: [], session: [] }]

const users: FastifyPluginAsyncTypebox = async (app) => {
  const route = routesOf(manifest)
  app.post(
    '/user-management/check-auth',
    {
      schema: route.app({
        summary: 'Check whether a session token is valid for a user',
        body: CheckAuthBodySchema,
        response: { 200: CheckAuthResponseSchema },
        errors: [403],
        docs: {
          description:
            'Says whether a session token is valid for a user. The token comes as `Authorization: Bearer` or as `sessionToken` ' +
            'in the body (compat). 200 for every well-formed request, with `authStatus` one of `AUTHENTICATED`, `INVALID_TOKEN`, ' +
            '`TOKEN_EXPIRED`, `USER_NOT_FOUND`: an unknown user is decided first, and a valid token of another user is ' +
            '`INVALID_TOKEN`. A malformed body or a non-UUID `userId` is 400. A banned user presenting a valid token gets 403 `USER_BANNED`.',
          request: { userId: EX.userId, sessionToken: EX.accessToken },
          response: {
            userId: EX.userId,
            isAuthenticated: true,
            authStatus: 'AUTHENTICATED',
            message: 'Session is valid',
          },
        },
      }),
      config: { sessionInBody: true },
    },
    async (request) => checkAuth(request.db, request.body.userId, presentedToken(request), app.clock.now()),
  )

  app.post(
    '/user-management/change-name',
    {
      schema: route.app({
        summary: "Change the user's name (shown everywhere)",
        security: sessionSecurity,
        body: ChangeNameBodySchema,
        response: { 200: ChangeNameResponseSchema },
        errors: [403],
        docs: {
          description:
            'Session required (bearer, or `sessionToken` in the body). Renames the user everywhere (profile, leaderboards): ' +
            '`newName` 1–50 characters after trimming, no control characters. 401 `SESSION_REQUIRED` without a valid session ' +
            '(with `WWW-Authenticate: Bearer`); 403 `SESSION_FORBIDDEN` when the session belongs to another user; 403 `USER_BANNED`.',
          request: { userId: EX.userId, newName: 'Ada' },
          response: { isAuthenticated: true, authStatus: 'AUTHENTICATED', userId: EX.userId, username: 'Ada' },
        },
      }),
      config: {
        sessionInBody: true,
        validate: (request) => void normalizeName((request.body as ChangeNameBody).newName, 'newName'),
      },
      preHandler: app.auth.sessionRequired,
    },
    async (request) => {
      const { userId, newName } = request.body
      const username = await renameUser(request.db, app.events, userId, newName, app.clock.now())
      return { isAuthenticated: true, authStatus: 'AUTHENTICATED' as const, userId, username }
    },
  )

  app.post(
    '/user-management/signout',
    {
      schema: route.app({
        summary: 'Revoke the presented session and its refresh token',
        security: sessionSecurity,
        body: SignoutBodySchema,
        response: { 200: SuccessSchema },
        errors: [403],
        docs: {
          description:
            'Session required. Revokes the presented session and its refresh token; other sessions of the user (other devices) ' +
            'stay signed in. 401 `SESSION_REQUIRED` without a valid session; 403 `SESSION_FORBIDDEN` when `userId` names another user.',
          request: { userId: EX.userId },
          response: { success: true },
        },
      }),
      config: { sessionInBody: true },
      preHandler: app.auth.sessionRequired,
    },
    async (request) => {
      await revokeSession(request.db, request.identity!.sessionId!, app.clock.now())
      return { success: true }
    },
  )
}

export default users
