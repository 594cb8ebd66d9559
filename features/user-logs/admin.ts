// The operator's view of player log lines: newest first, by user, type and time range.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { AdminUserLogListSchema, UserLogListQuerySchema } from './schemas.js'
import { listLogs } from './service.js'
import { routesOf } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'
import { EX, page } from '../../platform/openapi/examples.js'

const userLogsAdmin: FastifyPluginAsyncTypebox = async (app) => {
  const route = routesOf(manifest)
  app.get(
    '/user-logs',
    {
      schema: route.admin({
        summary: 'Log lines, newest first; filter by userId, type, from and to',
        querystring: UserLogListQuerySchema,
        response: { 200: AdminUserLogListSchema },
        docs: {
          description:
            'Log lines, newest first; filters `userId`, `type`, `from` (inclusive) and `to` (exclusive, ISO 8601); paged by `limit` and `cursor`.',
          parameters: { userId: EX.userId, type: 'ERROR', limit: 50 },
          response: page([
            {
              id: EX.id,
              userId: EX.userId,
              message: 'Shop purchase failed',
              type: 'ERROR',
              errorCode: 'IAP_TIMEOUT',
              createdAt: EX.now,
            },
          ]),
        },
      }),
    },
    async (request) => listLogs(request.reads, request.query),
  )
}

export default userLogsAdmin
