import type { NamedSchemas, OperationDocs } from '../../platform/openapi/index.js'
import { EX, page } from '../../platform/openapi/examples.js'
import { AdminFeedbackListSchema, AdminFeedbackSchema } from './schemas.js'
import { APP_PREFIX, ADMIN_PREFIX } from '../../platform/core/paths.js'

export const components: NamedSchemas = {
  Feedback: AdminFeedbackSchema,
  FeedbackPage: AdminFeedbackListSchema,
}

export const docs: OperationDocs = {
  [`POST ${APP_PREFIX}/user-feedback/submit`]: {
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
  [`GET ${ADMIN_PREFIX}/user-feedback`]: {
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
}
