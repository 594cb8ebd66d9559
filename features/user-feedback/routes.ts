// The app routes of user feedback: what the feature guarantees is in index.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { preHandlerAsyncHookHandler } from 'fastify'
import { present } from '../../platform/schemas/common.js'
import { FeedbackBodySchema, FeedbackOkSchema, type FeedbackBody } from './schemas.js'
import { presentedToken } from '../../platform/security/sessions.js'
import { submitFeedback } from './service.js'
import { routesOf, type Security } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'
import { EX } from '../../platform/openapi/examples.js'

/** The key alone (compat mode) or the key and the player's session. */
const userOrAnonymous: Security = [{ apiKey: [] }, { apiKey: [], session: [] }]

const userFeedback: FastifyPluginAsyncTypebox = async (app) => {
  const route = routesOf(manifest)
  // Anonymous feedback claims no identity, so it needs no session even in strict mode; a named user
  // or a presented bearer is checked exactly as on every user-scoped route.
  const userScopedWhenNamed: preHandlerAsyncHookHandler = async function (request, reply) {
    const named = present((request.body as FeedbackBody).userId)
    if (named !== undefined || presentedToken(request)) await app.auth.userScoped.call(this, request, reply)
  }

  app.post(
    '/user-feedback/submit',
    {
      schema: route.app({
        summary: 'Submit feedback (answers the JSON string "ok"); anonymous without userId',
        security: userOrAnonymous,
        body: FeedbackBodySchema,
        response: { 200: FeedbackOkSchema },
        errors: [403, 404, 413, 415],
        docs: {
          description:
            'Stores player feedback and answers the JSON string `"ok"` (compat). `title` 1–100 and `message` 1–2048 characters; ' +
            '`category` `BUG`, `FEATURE`, `GENERAL` (the default) or another label ≤ 32 characters; `email` a contact address; ' +
            '`deviceInfo` ≤ 500. With `userId` the call is user-scoped (compat mode: `userId` alone; a bearer sent must be ' +
            "valid, 401 `SESSION_REQUIRED`, and this user's, 403 `SESSION_FORBIDDEN`; 403 `USER_BANNED`; 404 `USER_NOT_FOUND`); " +
            'without it the feedback is stored as anonymous (the SDKs drop `userId` when nobody is signed in). 413 for a body ' +
            'over the route limit; 415 for a body that is not JSON.',
          request: {
            userId: EX.userId,
            title: 'Stuck on level 3',
            message: 'The door does not open after the boss.',
            category: 'BUG',
          },
          response: 'ok',
        },
      }),
      // The insert's foreign key decides whether a named player exists (submitFeedback).
      config: { userInStatement: true },
      preHandler: userScopedWhenNamed,
    },
    async (request, reply) => {
      const body = request.body
      await submitFeedback(
        request.db,
        {
          userId: request.identity?.userId ?? null,
          title: body.title,
          message: body.message,
          category: present(body.category),
          email: present(body.email),
          deviceInfo: present(body.deviceInfo),
        },
        app.clock.now(),
        app.events,
      )
      // Fastify sends a string payload as it is, unserialized: send the JSON text of the string "ok".
      return reply.type('application/json; charset=utf-8').send('"ok"' as 'ok')
    },
  )
}

export default userFeedback
