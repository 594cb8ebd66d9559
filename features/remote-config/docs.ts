import type { NamedSchemas } from '../../platform/openapi/index.js'
import { EX } from '../../platform/openapi/examples.js'
import { AdminConfigListSchema, AdminConfigSchema } from './schemas.js'

export const ETAG =
  'Values are strings (the game parses them). Sends an `ETag`; a request with a matching `If-None-Match` gets 304 with no body.'
export const stored = { configKey: 'shop.discount', configValue: '0.2', createdAt: EX.earlier, updatedAt: EX.now }

export const components: NamedSchemas = {
  RemoteConfigValue: AdminConfigSchema,
  RemoteConfigPage: AdminConfigListSchema,
}
