import type { NamedSchemas, OperationDocs } from '../../platform/openapi/index.js'
import { EX } from '../../platform/openapi/examples.js'
import { LoadResponseSchema, SaveResponseSchema } from './schemas.js'
import { APP_PREFIX } from '../../platform/core/paths.js'

const APP = `${APP_PREFIX}/cloud-save`
const SCOPED =
  'User-scoped: in compat mode `userId` alone is accepted and a bearer sent with it must be valid (401 ' +
  "`SESSION_REQUIRED`) and this user's (403 `SESSION_FORBIDDEN`); strict mode requires the bearer. 403 `USER_BANNED`."
const LOAD =
  `${SCOPED} Answers \`{ found: true, data, saveData, version, updatedAt }\` (\`saveData\` is the same value, compat) or ` +
  '`{ found: false, data: null, saveData: null }`; an unknown `userId` is `found: false`, not an error. A binary save ' +
  'read as JSON comes as base64 with `encoding: "base64"`. With `Accept: application/octet-stream` the answer is the ' +
  'raw bytes (a text save: its UTF-8 bytes), or 204 when there is no save.'
const loaded = {
  found: true,
  data: '{"level":7,"coins":1350}',
  saveData: '{"level":7,"coins":1350}',
  version: 12,
  updatedAt: EX.now,
}

export const components: NamedSchemas = {
  CloudSaveLoad: LoadResponseSchema,
  CloudSaveResult: SaveResponseSchema,
}

export const docs: OperationDocs = {
  [`POST ${APP}/save`]: {
    description:
      `${SCOPED} Stores the player's save: \`data\` or \`saveData\` (compat), a string kept as given and never parsed ` +
      '(if both are sent, `data` wins; a non-string is 400). Binary mode (compat): `Content-Type: application/octet-stream` ' +
      'with the raw bytes and `?userId=`. Versions start at 1 and go up by one per save; with `expectedVersion` (body, ' +
      'query or `If-Match`; 0 = no save yet) a different stored version is 409 `CONFLICT` with `currentVersion` in the ' +
      'body. Over `CLOUD_SAVE_MAX_BYTES` (default 300,000 bytes, UTF-8) is 413 `PAYLOAD_TOO_LARGE` and the old save is ' +
      'kept. 415 `UNSUPPORTED_MEDIA_TYPE` for another content type. 404 `USER_NOT_FOUND`. `revision` repeats `version` ' +
      '(the Unity SDK reads that name).',
    request: { userId: EX.userId, data: '{"level":7,"coins":1350}', expectedVersion: 11 },
    response: { success: true, dataSizeBytes: 24, version: 12, revision: 12, updatedAt: EX.now },
  },
  [`POST ${APP}/load`]: {
    description: `Loads the player's save (the newer SDKs' form). ${LOAD}`,
    request: { userId: EX.userId },
    response: loaded,
  },
  [`GET ${APP}/load`]: {
    description: `Loads the player's save (the older SDKs' form, \`?userId=\`). ${LOAD}`,
    parameters: { userId: EX.userId },
    response: loaded,
  },
}
