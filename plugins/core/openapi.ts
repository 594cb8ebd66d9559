import { STATUS_CODES } from 'node:http'
import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { ErrorSchema } from '../../schemas/common.js'

export const FEATURE_TAGS = [
  'Authentication',
  'Users',
  'Player Profile',
  'Leaderboard',
  'Validated Actions',
  'Cloud Save',
  'Remote Config',
  'Localization',
  'News',
  'Gift Codes',
  'Email Sending',
  'Crash Reporting',
  'User Feedback',
  'User Logs',
] as const

export const HEALTH_TAG = 'Health'
export const adminTag = (feature: string) => `Admin · ${feature}`

/** Every tag an operation may carry, in the order the UI lists them (API.md §9). */
export const OPERATION_TAGS: readonly string[] = [
  ...FEATURE_TAGS,
  ...FEATURE_TAGS.map(adminTag),
  adminTag('Operators'),
  HEALTH_TAG,
]

/** The name of the one error body in components/schemas; every error response points at it. */
export const ERROR_COMPONENT = 'ErrorResponse'

type Json = Record<string, any>

/**
 * Routes declare `tags: ['Admin', '<Feature>']` so a feature's admin file reads naturally; in the UI
 * that showed every admin operation twice. One tag per operation: `Admin · <Feature>`.
 */
export function operationTags(tags: unknown): unknown {
  if (!Array.isArray(tags) || !tags.includes('Admin')) return tags
  const features = tags.filter((tag) => tag !== 'Admin')
  return features.length === 1 ? [adminTag(features[0])] : tags
}

const words = (text: string) => text.split(/[^A-Za-z0-9]+/).filter(Boolean)
const capitalize = (word: string) => word.charAt(0).toUpperCase() + word.slice(1)

/**
 * A name generated clients use for the method, so it is derived from the method and the route pattern
 * only (the same on every start, whatever the registration order): `GET /api/v1/app/leaderboard/top` →
 * `getLeaderboardTop`, `PUT /api/v1/admin/leaderboards/{boardKey}` → `adminPutLeaderboardsByBoardKey`.
 * Path parameters go last as `By<Name>And<Name>` so `/leaderboard/top` and `/leaderboards/{boardKey}/top`
 * stay apart. Health routes keep their whole path: four spellings of one check must not collide.
 */
export function operationId(method: string, path: string, tags: unknown): string {
  let segments = path.split('/').filter(Boolean)
  const isHealth = Array.isArray(tags) && tags.includes(HEALTH_TAG)
  let prefix = ''
  if (segments[0] === 'api' && segments[1] === 'v1') {
    segments = segments.slice(2)
    if (segments[0] === 'admin') {
      prefix = 'admin'
      segments = segments.slice(1)
    } else if (segments[0] === 'app' && !isHealth) {
      segments = segments.slice(1)
    }
  }
  const statics = segments.filter((s) => !s.startsWith('{')).flatMap(words)
  const params = segments.filter((s) => s.startsWith('{')).map((s) => words(s).map(capitalize).join(''))
  const name = [method.toLowerCase(), ...statics, ...(params.length ? ['By', params.join('And')] : [])]
    .map(capitalize)
    .join('')
  return prefix ? prefix + name : name.charAt(0).toLowerCase() + name.slice(1)
}

const SCHEMA_VALUE_KEYS = new Set(['example', 'examples', 'default', 'enum', 'const'])

/** Calls `visit` on every schema object under `node`, without mistaking a property named like a keyword. */
function walkSchema(node: unknown, visit: (schema: Json) => void) {
  if (!node || typeof node !== 'object') return
  if (Array.isArray(node)) return node.forEach((item) => walkSchema(item, visit))
  const schema = node as Json
  visit(schema)
  for (const [key, value] of Object.entries(schema)) {
    if (SCHEMA_VALUE_KEYS.has(key)) continue
    if (key === 'properties' && value && typeof value === 'object') {
      for (const property of Object.values(value)) walkSchema(property, visit)
    } else walkSchema(value, visit)
  }
}

/**
 * OpenAPI 3.0 has no `propertyNames`: a validator rejects the document. The validation keeps it (a bad
 * key is a 400); the document says the rule in words instead.
 */
function stripPropertyNames(schema: Json) {
  if (!('propertyNames' in schema)) return
  const pattern = schema.propertyNames?.pattern
  delete schema.propertyNames
  if (pattern) {
    const rule = `Keys match \`${pattern}\`.`
    schema.description = schema.description ? `${schema.description}. ${rule}` : rule
  }
}

/** Ajv fills a missing field that has a default, so a caller may leave it out: it is not required. */
function unrequireDefaults(schema: Json) {
  if (!Array.isArray(schema.required) || !schema.properties) return
  const required = schema.required.filter((name: string) => schema.properties[name]?.default === undefined)
  if (required.length) schema.required = required
  else delete schema.required
}

/** The finishing pass over the generated document (see the plugin's doc comment). */
export function finishDocument(doc: Json): Json {
  const used = new Set<string>()
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const [method, op] of Object.entries(item)) {
      if (!op || typeof op !== 'object' || !('responses' in op)) continue
      op.tags = operationTags(op.tags)
      op.tags?.forEach((tag: string) => used.add(tag))
      op.operationId ??= operationId(method, path, op.tags)
      for (const parameter of op.parameters ?? []) {
        if (parameter.in !== 'path' && parameter.schema?.default !== undefined) parameter.required = false
        walkSchema(parameter.schema, stripPropertyNames)
      }
      for (const media of Object.values((op.requestBody?.content ?? {}) as Record<string, Json>)) {
        walkSchema(media.schema, (schema) => {
          stripPropertyNames(schema)
          unrequireDefaults(schema)
        })
      }
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        // The generator's placeholder and the error body's own description say nothing about the status.
        if (response.description === 'Default Response' || response.description === ErrorSchema.description) {
          response.description = STATUS_CODES[status] ?? status
        }
        for (const media of Object.values((response.content ?? {}) as Record<string, Json>)) {
          walkSchema(media.schema, stripPropertyNames)
        }
      }
    }
  }
  const error = doc.components?.schemas?.[ERROR_COMPONENT]
  if (error) {
    delete error.title
    error.description =
      'The body of every error response. `message` is for people, `code` is stable and for programs; ' +
      'validation errors add `details`, and some errors add context fields (e.g. `runId`). ' +
      'The one exception is the transient rate limit: 429 with an empty body.'
  }
  // The tag list matches the operations: each tag used, none listed that no operation carries.
  doc.tags = [
    ...OPERATION_TAGS.filter((tag) => used.has(tag)),
    ...[...used].filter((t) => !OPERATION_TAGS.includes(t)),
  ].map((name) => ({ name }))
  return doc
}

/**
 * The OpenAPI 3 document, generated from the route schemas (API.md §9): /docs and /docs/json. What the
 * route schemas cannot say well is settled here, once, rather than route by route: the one tag and the
 * operationId of each operation, the error body as one `$ref`'d component, what OpenAPI 3.0 cannot
 * express, and response descriptions.
 */
export default fp(
  async (app) => {
    app.addSchema(ErrorSchema)
    await app.register(swagger, {
      openapi: {
        openapi: '3.0.3',
        info: {
          title: 'Outpost',
          description: `Self-hosted game backend, compatible with the horizOn SDKs. Every error has the same body (${ERROR_COMPONENT}).`,
          version: '1',
        },
        components: {
          securitySchemes: {
            apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
            session: { type: 'http', scheme: 'bearer', description: 'accessToken from signup or signin' },
            adminKey: { type: 'apiKey', in: 'header', name: 'X-Admin-Key' },
            adminSession: {
              type: 'apiKey',
              in: 'cookie',
              name: 'outpost_session',
              description:
                'Console session from POST /api/v1/admin/session; writes also need X-Requested-With: outpost-console',
            },
          },
        },
        security: [{ apiKey: [] }],
      },
      // Shared schemas become components; the error body gets its contract name instead of `def-0`.
      refResolver: {
        buildLocalReference: (json, _baseUri, _fragment, i) =>
          json.$id === ErrorSchema.$id ? ERROR_COMPONENT : `def-${i}`,
      },
      // Routes list the error schema object itself (`errors(...)`): point at the shared one instead of
      // inlining a copy of it into every response (a copy per operation, and a nameless type in clients).
      transform: ({ schema, url }) => {
        if (!schema?.response) return { schema, url }
        const response = Object.fromEntries(
          Object.entries(schema.response as Record<string, unknown>).map(([status, body]) => [
            status,
            body === ErrorSchema ? { $ref: `${ErrorSchema.$id}#` } : body,
          ]),
        )
        return { schema: { ...schema, response }, url }
      },
      transformObject: (document) => finishDocument((document as { openapiObject: Json }).openapiObject),
    })
    await app.register(swaggerUi, {
      routePrefix: '/docs',
      staticCSP: true,
      // The default CSP ends in `upgrade-insecure-requests`: on any host but localhost over plain HTTP
      // (a VM, a LAN box) the browser then fetches the UI's own files over HTTPS and the page stays blank.
      transformStaticCSP: (header) =>
        header
          .split(';')
          .filter((directive) => directive.trim() !== 'upgrade-insecure-requests')
          .join(';'),
    })
  },
  { name: 'openapi' },
)
