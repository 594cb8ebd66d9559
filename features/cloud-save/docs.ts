import type { NamedSchemas } from '../../platform/openapi/index.js'
import { EX } from '../../platform/openapi/examples.js'
import { LoadResponseSchema, SaveResponseSchema } from './schemas.js'

export const SCOPED =
  'User-scoped: in compat mode `userId` alone is accepted and a bearer sent with it must be valid (401 ' +
  "`SESSION_REQUIRED`) and this user's (403 `SESSION_FORBIDDEN`); strict mode requires the bearer. 403 `USER_BANNED`."
export const LOAD =
  `${SCOPED} Answers \`{ found: true, data, saveData, version, updatedAt }\` (\`saveData\` is the same value, compat) or ` +
  '`{ found: false, data: null, saveData: null }`; an unknown `userId` is `found: false`, not an error. A binary save ' +
  'read as JSON comes as base64 with `encoding: "base64"`. With `Accept: application/octet-stream` the answer is the ' +
  'raw bytes (a text save: its UTF-8 bytes), or 204 when there is no save.'
export const loaded = {
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
