// The operator's view of player log lines: newest first, by user, type and time range.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../platform/schemas/common.js'
import { AdminUserLogListSchema, UserLogListQuerySchema } from './schemas.js'
import { listLogs } from './service.js'

const userLogsAdmin: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/user-logs',
    {
      schema: {
        tags: ['Admin', 'User Logs'],
        security: [{ adminKey: [] }],
        summary: 'Log lines, newest first; filter by userId, type, from and to',
        querystring: UserLogListQuerySchema,
        response: { 200: AdminUserLogListSchema, ...errors(400, 401, 429) },
      },
    },
    async (request) => listLogs(app.db, request.query),
  )
}

export default userLogsAdmin
