// The operator's feedback inbox: newest first, by user, category and time range.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../platform/schemas/common.js'
import { AdminFeedbackListSchema, FeedbackListQuerySchema } from './schemas.js'
import { listFeedback } from './service.js'

const userFeedbackAdmin: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/user-feedback',
    {
      schema: {
        tags: ['Admin', 'User Feedback'],
        security: [{ adminKey: [] }],
        summary: 'Feedback, newest first; filter by userId, category, from and to',
        querystring: FeedbackListQuerySchema,
        response: { 200: AdminFeedbackListSchema, ...errors(400, 401, 429) },
      },
    },
    async (request) => listFeedback(app.db, request.query),
  )
}

export default userFeedbackAdmin
