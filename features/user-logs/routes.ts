// The app routes of user logs: what the feature guarantees is in index.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { present } from '../../platform/schemas/common.js'
import { UserLogBodySchema, UserLogCreatedSchema } from './schemas.js'
import { createLog } from './service.js'
import { routesOf, type Security } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'
import { EX } from '../../platform/openapi/examples.js'

/** The key alone (compat mode) or the key and the player's session. */
const userOrAnonymous: Security = [{ apiKey: [] }, { apiKey: [], session: [] }]

const userLogs: FastifyPluginAsyncTypebox = async (app) => {
  const route = routesOf(manifest)
  app.post(
    '/user-logs/create',
    {
      schema: route.app({
        summary: 'Store one log line for the player',
        security: userOrAnonymous,
        body: UserLogBodySchema,
        response: { 201: UserLogCreatedSchema },
        errors: [403, 404, 413, 415],
        docs: {
          description:
            'Stores one log line for the player: `message` 1–1000 characters, `type` `INFO` | `WARN` | `ERROR`, `errorCode` ≤ 50. ' +
            "User-scoped (compat mode: `userId` alone; a bearer sent must be valid, 401 `SESSION_REQUIRED`, and this user's, 403 " +
            '`SESSION_FORBIDDEN`; strict mode requires it); 403 `USER_BANNED`; 404 `USER_NOT_FOUND`. 413 for a body over the ' +
            'route limit; 415 for a body that is not JSON. 201 `{ id, createdAt }`.',
          request: { userId: EX.userId, message: 'Shop purchase failed', type: 'ERROR', errorCode: 'IAP_TIMEOUT' },
          response: { id: EX.id, createdAt: EX.now },
        },
      }),
      // The insert's foreign key decides whether the player exists (createLog).
      config: { userInStatement: true },
      preHandler: app.auth.userScoped,
    },
    async (request, reply) => {
      const { message, type, errorCode } = request.body
      const created = await createLog(
        request.db,
        { userId: request.identity!.userId, message, type, errorCode: present(errorCode) },
        app.clock.now(),
      )
      return reply.code(201).send(created)
    },
  )
}

export default userLogs
