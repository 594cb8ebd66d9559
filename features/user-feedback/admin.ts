// The operator's feedback inbox: newest first, by user, category and time range.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { AdminFeedbackListSchema, FeedbackListQuerySchema } from './schemas.js'
import { listFeedback } from './service.js'
import { routesOf } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'
import { EX, page } from '../../platform/openapi/examples.js'

const userFeedbackAdmin: FastifyPluginAsyncTypebox = async (app) => {
  const route = routesOf(manifest)
  app.get(
    '/user-feedback',
    {
      schema: route.admin({
        summary: 'Feedback, newest first; filter by userId, category, from and to',
        querystring: FeedbackListQuerySchema,
        response: { 200: AdminFeedbackListSchema },
        docs: {
          description:
            "Feedback, newest first, each with the sending player's `playerName` (null for anonymous feedback); filters `userId`, " +
            '`category`, `from` (inclusive) and `to` (exclusive, ISO 8601); paged by `limit` and `cursor`.',
          parameters: { category: 'BUG', from: '2026-11-01T00:00:00Z', limit: 50 },
          response: page([
            {
              id: EX.id,
              userId: EX.userId,
              playerName: 'ann',
              title: 'Stuck on level 3',
              message: 'The door does not open after the boss.',
              category: 'BUG',
              email: null,
              deviceInfo: 'Pixel 8, Android 14',
              createdAt: EX.now,
            },
          ]),
        },
      }),
    },
    async (request) => listFeedback(request.reads, request.query),
  )
}

export default userFeedbackAdmin
