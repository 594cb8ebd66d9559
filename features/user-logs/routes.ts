// The app routes of user logs: what the feature guarantees is in index.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors, present } from '../../platform/schemas/common.js'
import { UserLogBodySchema, UserLogCreatedSchema } from './schemas.js'
import { createLog } from './service.js'

const userLogs: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/user-logs/create',
    {
      schema: {
        tags: ['User Logs'],
        summary: 'Store one log line for the player',
        security: [{ apiKey: [] }, { apiKey: [], session: [] }],
        body: UserLogBodySchema,
        response: { 201: UserLogCreatedSchema, ...errors(400, 401, 403, 404, 413, 415, 429) },
      },
      // The insert's foreign key decides whether the player exists (createLog).
      config: { userInStatement: true },
      preHandler: app.auth.userScoped,
    },
    async (request, reply) => {
      const { message, type, errorCode } = request.body
      const created = await createLog(
        app.db,
        { userId: request.identity!.userId, message, type, errorCode: present(errorCode) },
        app.clock.now(),
      )
      return reply.code(201).send(created)
    },
  )
}

export default userLogs
