import type { NamedSchemas, OperationDocs } from '../../platform/openapi/index.js'
import { EX, page } from '../../platform/openapi/examples.js'
import { AdminUserLogListSchema, AdminUserLogSchema } from './schemas.js'
import { APP_PREFIX, ADMIN_PREFIX } from '../../platform/core/paths.js'

export const components: NamedSchemas = {
  UserLog: AdminUserLogSchema,
  UserLogPage: AdminUserLogListSchema,
}

export const docs: OperationDocs = {
  [`POST ${APP_PREFIX}/user-logs/create`]: {
    description:
      'Stores one log line for the player: `message` 1–1000 characters, `type` `INFO` | `WARN` | `ERROR`, `errorCode` ≤ 50. ' +
      "User-scoped (compat mode: `userId` alone; a bearer sent must be valid, 401 `SESSION_REQUIRED`, and this user's, 403 " +
      '`SESSION_FORBIDDEN`; strict mode requires it); 403 `USER_BANNED`; 404 `USER_NOT_FOUND`. 413 for a body over the ' +
      'route limit; 415 for a body that is not JSON. 201 `{ id, createdAt }`.',
    request: { userId: EX.userId, message: 'Shop purchase failed', type: 'ERROR', errorCode: 'IAP_TIMEOUT' },
    response: { id: EX.id, createdAt: EX.now },
  },
  [`GET ${ADMIN_PREFIX}/user-logs`]: {
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
}
