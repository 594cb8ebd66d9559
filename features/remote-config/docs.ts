import type { NamedSchemas, OperationDocs } from '../../platform/openapi/index.js'
import { EX, page } from '../../platform/openapi/examples.js'
import { AdminConfigListSchema, AdminConfigSchema } from './schemas.js'
import { APP_PREFIX, ADMIN_PREFIX } from '../../platform/core/paths.js'

const APP = `${APP_PREFIX}/remote-config`
const ADMIN = `${ADMIN_PREFIX}/remote-config`
const ETAG =
  'Values are strings (the game parses them). Sends an `ETag`; a request with a matching `If-None-Match` gets 304 with no body.'
const stored = { configKey: 'shop.discount', configValue: '0.2', createdAt: EX.earlier, updatedAt: EX.now }

export const components: NamedSchemas = {
  RemoteConfigValue: AdminConfigSchema,
  RemoteConfigPage: AdminConfigListSchema,
}

export const docs: OperationDocs = {
  [`GET ${APP}/all`]: {
    description: `Every config value as \`{ key: value }\` with their count. ${ETAG}`,
    response: { configs: { 'shop.discount': '0.2', 'ui.theme': 'dark' }, total: 2 },
  },
  [`GET ${APP}/filter`]: {
    description:
      'The values whose keys match `pattern` (compat): key text (`[A-Za-z0-9._-]`) with up to 10 `*` wildcards, no `**`, ' +
      '≤ 102 characters; a bad pattern is 400. `matchType` says how it was read: `PREFIX` (no wildcard, or one trailing ' +
      `\`*\`), \`SUFFIX\` (one leading \`*\`), \`CONTAINS\` (\`*text*\`), else \`GLOB\`. ${ETAG}`,
    parameters: { pattern: 'shop.*' },
    response: { configs: { 'shop.discount': '0.2' }, total: 1, pattern: 'shop.*', matchType: 'PREFIX' },
  },
  [`GET ${APP}/{configKey}`]: {
    description:
      'One value. Keys: 1–128 characters of letters, digits, `.`, `_`, `-` (`all` and `filter` are reserved). An unknown ' +
      `key is not an error: \`found: false\`, \`configValue: null\`. ${ETAG}`,
    parameters: { configKey: 'shop.discount' },
    response: { configKey: 'shop.discount', configValue: '0.2', found: true },
  },
  [`GET ${ADMIN}`]: {
    description:
      'Every config value, most recently changed first; a page of at most `limit` (1–100, default 50), `cursor` for the next.',
    parameters: { limit: 50 },
    response: page([stored]),
  },
  [`PUT ${ADMIN}/{configKey}`]: {
    description:
      'Creates or replaces one value (a string of at most 65,536 characters). `all` and `filter` are reserved keys (400). 409 ' +
      '`CONFLICT` when the key was deleted while it was being written: retry. Players see the change on their next read.',
    parameters: { configKey: 'shop.discount' },
    request: { value: '0.2' },
    response: stored,
  },
  [`DELETE ${ADMIN}/{configKey}`]: {
    description: 'Deletes one value. 404 `NOT_FOUND`.',
    parameters: { configKey: 'shop.discount' },
    response: { configKey: 'shop.discount', deleted: true },
  },
  [`POST ${ADMIN}/import`]: {
    description:
      'Creates or replaces many values in one transaction, all or nothing: `configs` maps keys (the key rule above) to ' +
      'values, at most 5000 keys; existing keys not named are kept. A bad key or value is 400 and nothing changes; 413 ' +
      'for a body over the route limit.',
    request: { configs: { 'shop.discount': '0.2', 'ui.theme': 'dark' } },
    response: { imported: 2, configs: { 'shop.discount': '0.2', 'ui.theme': 'dark' } },
  },
}
