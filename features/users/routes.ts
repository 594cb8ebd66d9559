// The app routes of users: what the feature guarantees is in index.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { SuccessSchema, errors } from '../../platform/schemas/common.js'
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

const tags = ['Users']
const sessionSecurity = [{ apiKey: [], session: [] }]

const users: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/user-management/check-auth',
    {
      schema: {
        tags,
        summary: 'Check whether a session token is valid for a user',
        body: CheckAuthBodySchema,
        response: { 200: CheckAuthResponseSchema, ...errors(400, 401, 403, 429) },
      },
      config: { sessionInBody: true },
    },
    async (request) => checkAuth(app.db, request.body.userId, presentedToken(request), app.clock.now()),
  )

  app.post(
    '/user-management/change-name',
    {
      schema: {
        tags,
        summary: "Change the user's name (shown everywhere)",
        security: sessionSecurity,
        body: ChangeNameBodySchema,
        response: { 200: ChangeNameResponseSchema, ...errors(400, 401, 403, 429) },
      },
      config: {
        sessionInBody: true,
        validate: (request) => void normalizeName((request.body as ChangeNameBody).newName, 'newName'),
      },
      preHandler: app.auth.sessionRequired,
    },
    async (request) => {
      const { userId, newName } = request.body
      const username = await renameUser(app.db, app.events, userId, newName, app.clock.now())
      return { isAuthenticated: true, authStatus: 'AUTHENTICATED' as const, userId, username }
    },
  )

  app.post(
    '/user-management/signout',
    {
      schema: {
        tags,
        summary: 'Revoke the presented session and its refresh token',
        security: sessionSecurity,
        body: SignoutBodySchema,
        response: { 200: SuccessSchema, ...errors(400, 401, 403, 429) },
      },
      config: { sessionInBody: true },
      preHandler: app.auth.sessionRequired,
    },
    async (request) => {
      await revokeSession(app.db, request.identity!.sessionId!, app.clock.now())
      return { success: true }
    },
  )
}

export default users
