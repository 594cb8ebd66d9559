// The app routes of user feedback: what the feature guarantees is in index.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { preHandlerAsyncHookHandler } from 'fastify'
import { errors, present } from '../../platform/schemas/common.js'
import { FeedbackBodySchema, FeedbackOkSchema, type FeedbackBody } from './schemas.js'
import { presentedToken } from '../../platform/security/sessions.js'
import { submitFeedback } from './service.js'

const userFeedback: FastifyPluginAsyncTypebox = async (app) => {
  // Anonymous feedback claims no identity, so it needs no session even in strict mode; a named user
  // or a presented bearer is checked exactly as on every user-scoped route.
  const userScopedWhenNamed: preHandlerAsyncHookHandler = async function (request, reply) {
    const named = present((request.body as FeedbackBody).userId)
    if (named !== undefined || presentedToken(request)) await app.auth.userScoped.call(this, request, reply)
  }

  app.post(
    '/user-feedback/submit',
    {
      schema: {
        tags: ['User Feedback'],
        summary: 'Submit feedback (answers the JSON string "ok"); anonymous without userId',
        security: [{ apiKey: [] }, { apiKey: [], session: [] }],
        body: FeedbackBodySchema,
        response: { 200: FeedbackOkSchema, ...errors(400, 401, 403, 404, 413, 415, 429) },
      },
      // The insert's foreign key decides whether a named player exists (submitFeedback).
      config: { userInStatement: true },
      preHandler: userScopedWhenNamed,
    },
    async (request, reply) => {
      const body = request.body
      await submitFeedback(
        app.db,
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
