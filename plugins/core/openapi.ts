import { STATUS_CODES } from 'node:http'
import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { TSchema } from '@sinclair/typebox'
import { ErrorSchema } from '../../schemas/common.js'

/**
 * What a feature says of one operation, beyond its route schema (each feature's `docs.ts`). It is
 * applied to the generated document, so the route files stay about behaviour.
 */
export interface OperationDoc {
  /**
   * What a caller needs: limits, the error codes the route answers and why, compatibility notes.
   * A `description` written in the route schema itself wins over this one.
   */
  description: string
  /** An example request body, valid against the body schema. */
  request?: unknown
  /** Example values of the path and query parameters, by parameter name. */
  parameters?: Record<string, unknown>
  /** An example body of the success response, valid against its schema. */
  response?: unknown
  /** The status `response` is for; default the lowest 2xx the route declares. */
  status?: number
}

/** Operation docs keyed by `'<METHOD> <path as in the document>'`, e.g. `'GET /api/v1/app/leaderboard/top'`. */
export type OperationDocs = Record<string, OperationDoc>

/**
 * Shapes the document names (components/schemas) and references with `$ref` wherever a route's body
 * or response holds an equal schema, instead of repeating them inline.
 */
export type NamedSchemas = Record<string, TSchema>

export interface OpenApiRegistry {
  /** Adds a feature's operation docs and named shapes; a name or an operation is described once. */
  describe(operations: OperationDocs, components?: NamedSchemas): void
  readonly operations: ReadonlyMap<string, OperationDoc>
  readonly components: ReadonlyMap<string, TSchema>
}

declare module 'fastify' {
  interface FastifyInstance {
    openapi: OpenApiRegistry
  }
}

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

/** Every tag an operation may carry, in the order the UI lists them. */
export const OPERATION_TAGS: readonly string[] = [
  ...FEATURE_TAGS,
  ...FEATURE_TAGS.map(adminTag),
  adminTag('Operators'),
  adminTag('Settings'),
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

/**
 * OpenAPI 3.0.3: `nullable` does not widen an `enum`, so a nullable enum must list `null` itself, or
 * `null` (a real answer, e.g. a run's `verdict` before review) is invalid against the document.
 */
function nullableEnum(schema: Json) {
  if (schema.nullable === true && Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum.push(null)
}

/** Ajv fills a missing field that has a default, so a caller may leave it out: it is not required. */
function unrequireDefaults(schema: Json) {
  if (!Array.isArray(schema.required) || !schema.properties) return
  const required = schema.required.filter((name: string) => schema.properties[name]?.default === undefined)
  if (required.length) schema.required = required
  else delete schema.required
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null

/** The text of a value with its keys sorted (symbol keys, TypeBox's, are not part of it). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (isObject(value)) {
    const keys = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort()
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/** Keywords whose value is one subschema, a list of them, or a map of names to them. */
const ONE_SUBSCHEMA = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains']
const SUBSCHEMA_LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems']
const SUBSCHEMA_MAP = ['properties', 'patternProperties']

export const componentRef = (name: string) => ({ $ref: `#/components/schemas/${name}` })

/**
 * A copy of `schema` in which every subschema equal to a named shape is a `$ref` to it (the root too,
 * unless `keepRoot`: a named shape is not a reference to itself). The input is never changed.
 */
export function referenceNamed(schema: unknown, named: ReadonlyMap<string, string>, keepRoot = false): unknown {
  if (!isObject(schema) || Array.isArray(schema)) return schema
  if (!keepRoot) {
    const name = named.get(canonicalJson(schema))
    if (name) return componentRef(name)
  }
  const copy: Json = { ...schema }
  for (const key of ONE_SUBSCHEMA) if (isObject(copy[key])) copy[key] = referenceNamed(copy[key], named)
  for (const key of SUBSCHEMA_LIST) {
    if (Array.isArray(copy[key])) copy[key] = copy[key].map((item: unknown) => referenceNamed(item, named))
  }
  for (const key of SUBSCHEMA_MAP) {
    if (isObject(copy[key])) {
      copy[key] = Object.fromEntries(Object.entries(copy[key]).map(([k, v]) => [k, referenceNamed(v, named)]))
    }
  }
  return copy
}

/** A route schema for the document: bodies and responses refer to the named shapes they contain. */
export function referenceRouteSchema(schema: Json, named: ReadonlyMap<string, string>): Json {
  const copy: Json = { ...schema }
  if (copy.body) copy.body = referenceNamed(copy.body, named)
  if (isObject(copy.response)) {
    copy.response = Object.fromEntries(
      Object.entries(copy.response as Json).map(([status, body]) => {
        if (body === ErrorSchema) return [status, { $ref: `${ErrorSchema.$id}#` }]
        // The `{ description, content: { <media type>: { schema } } }` form of a response.
        if (isObject(body) && isObject(body.content) && !('type' in body)) {
          const content = Object.fromEntries(
            Object.entries(body.content as Json).map(([media, entry]) => [
              media,
              isObject(entry) ? { ...entry, schema: referenceNamed(entry.schema, named) } : entry,
            ]),
          )
          return [status, { ...body, content }]
        }
        return [status, referenceNamed(body, named)]
      }),
    )
  }
  return copy
}

/** The first 2xx status an operation declares (its success answer). */
function successStatus(op: Json): string | undefined {
  return Object.keys(op.responses ?? {})
    .filter((status) => /^2\d\d$/.test(status))
    .sort()[0]
}

/** The media type an example goes under: JSON when the operation offers it, else its first. */
function exampleMedia(content: Json | undefined): Json | undefined {
  if (!content) return undefined
  return content['application/json'] ?? Object.values(content)[0]
}

/**
 * The answers every route of a surface gives for the same reasons, said once here from the statuses
 * the operation declares, so each feature's description can keep to what is particular to the route.
 */
export function commonAnswers(path: string, statuses: string[]): string[] {
  const admin = path.startsWith('/api/v1/admin/')
  const app = path.startsWith('/api/v1/app/')
  if (!admin && !app) return []
  const lines: string[] = []
  if (statuses.includes('400')) {
    lines.push(
      `400 \`VALIDATION_ERROR\` (with \`details\`) or \`INVALID_JSON\`: the request does not match the schema${admin ? ' (unknown fields and query parameters included)' : ''}`,
    )
  }
  if (statuses.includes('401'))
    lines.push(`401 \`UNAUTHORIZED\`: \`${admin ? 'X-Admin-Key' : 'X-API-Key'}\` missing or wrong`)
  if (statuses.includes('429')) {
    lines.push(
      `429 with an empty body: over \`${admin ? 'ADMIN_RATE_LIMIT_PER_SECOND` per admin credential' : 'RATE_LIMIT_PER_SECOND` per IP'}; retry after \`Retry-After\``,
    )
  }
  return lines
}

/** Puts an operation's docs where OpenAPI 3.0 reads them: description, media type and parameter examples. */
function applyOperationDoc(op: Json, doc: OperationDoc) {
  if (!op.description) op.description = doc.description
  if (doc.request !== undefined) {
    const media = exampleMedia(op.requestBody?.content)
    if (media) media.example = doc.request
  }
  for (const parameter of op.parameters ?? []) {
    if (doc.parameters && parameter.name in doc.parameters) parameter.example = doc.parameters[parameter.name]
  }
  if (doc.response !== undefined) {
    const status = doc.status !== undefined ? String(doc.status) : successStatus(op)
    const media = status ? exampleMedia(op.responses?.[status]?.content) : undefined
    if (media) media.example = doc.response
  }
}

/** The name of the shared response of an error status: `429` → `TooManyRequests`. */
export const errorResponseName = (status: string) =>
  (STATUS_CODES[status] ?? `Status${status}`).replace(/[^A-Za-z0-9]/g, '')

/** What the shared error responses say beyond their status, where there is something to say. */
const ERROR_RESPONSE_NOTES: Record<string, string> = {
  '429':
    'Too Many Requests. With an empty body (no `code`): the transient rate limit, retry after `Retry-After` seconds. ' +
    'With an ErrorResponse body: a feature limit named by its `code` (e.g. `TOO_MANY_ATTEMPTS`), not retried blindly.',
  '503':
    'Service Unavailable: the database does not answer (with `Retry-After`), or a feature is not configured (see `code`).',
}

/**
 * Every operation lists its error statuses, and each was the same few lines: the status and the
 * ErrorResponse body. They are shared responses in components/responses, one per status, referenced.
 */
function shareErrorResponses(doc: Json) {
  const shared: Json = {}
  for (const item of Object.values(doc.paths as Record<string, Json>)) {
    for (const op of Object.values(item)) {
      if (!isObject(op) || !isObject(op.responses)) continue
      for (const [status, response] of Object.entries(op.responses as Json)) {
        const content = (response as Json).content
        const plainError =
          /^[45]\d\d$/.test(status) &&
          (response as Json).description === (STATUS_CODES[status] ?? status) &&
          isObject(content) &&
          Object.keys(content).length === 1 &&
          content['application/json']?.schema?.$ref === componentRef(ERROR_COMPONENT).$ref &&
          Object.keys(content['application/json']).length === 1
        if (!plainError) continue
        const name = errorResponseName(status)
        shared[name] ??= {
          description: ERROR_RESPONSE_NOTES[status] ?? STATUS_CODES[status] ?? status,
          content: { 'application/json': { schema: componentRef(ERROR_COMPONENT) } },
        }
        op.responses[status] = { $ref: `#/components/responses/${name}` }
      }
    }
  }
  if (Object.keys(shared).length) {
    doc.components ??= {}
    doc.components.responses = Object.fromEntries(Object.entries(shared).sort(([a], [b]) => a.localeCompare(b)))
  }
}

/** The finishing pass over the generated document (see the plugin's doc comment). */
export function finishDocument(doc: Json, operationDocs: ReadonlyMap<string, OperationDoc> = new Map()): Json {
  const used = new Set<string>()
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const [method, op] of Object.entries(item)) {
      if (!op || typeof op !== 'object' || !('responses' in op)) continue
      op.tags = operationTags(op.tags)
      op.tags?.forEach((tag: string) => used.add(tag))
      op.operationId ??= operationId(method, path, op.tags)
      const described = operationDocs.get(`${method.toUpperCase()} ${path}`)
      if (described) applyOperationDoc(op, described)
      const common = commonAnswers(path, Object.keys(op.responses))
      if (op.description && common.length) {
        op.description += `\n\nAs on every ${path.startsWith('/api/v1/admin/') ? 'admin' : 'app'} route:\n${common.map((line) => `- ${line}`).join('\n')}`
      }
      for (const parameter of op.parameters ?? []) {
        if (parameter.in !== 'path' && parameter.schema?.default !== undefined) parameter.required = false
        walkSchema(parameter.schema, (schema) => {
          stripPropertyNames(schema)
          nullableEnum(schema)
        })
      }
      for (const media of Object.values((op.requestBody?.content ?? {}) as Record<string, Json>)) {
        walkSchema(media.schema, (schema) => {
          stripPropertyNames(schema)
          unrequireDefaults(schema)
          nullableEnum(schema)
        })
      }
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        // The generator's placeholder and the error body's own description say nothing about the status.
        if (response.description === 'Default Response' || response.description === ErrorSchema.description) {
          response.description = STATUS_CODES[status] ?? status
        }
        for (const media of Object.values((response.content ?? {}) as Record<string, Json>)) {
          walkSchema(media.schema, (schema) => {
            stripPropertyNames(schema)
            nullableEnum(schema)
          })
        }
      }
    }
  }
  shareErrorResponses(doc)
  // Named shapes hold request bodies too: the same two rules apply to them.
  for (const schema of Object.values((doc.components?.schemas ?? {}) as Record<string, Json>)) {
    walkSchema(schema, (node) => {
      stripPropertyNames(node)
      unrequireDefaults(node)
      nullableEnum(node)
    })
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
 * The OpenAPI 3 document, generated from the route schemas: /docs and /docs/json. What the
 * route schemas cannot say well is settled here, once, rather than route by route: the one tag and the
 * operationId of each operation, the error body as one `$ref`'d component, what OpenAPI 3.0 cannot
 * express, and response descriptions.
 */
export default fp(
  async (app) => {
    app.addSchema(ErrorSchema)
    const operations = new Map<string, OperationDoc>()
    const components = new Map<string, TSchema>()
    // Read by the generator when it builds the document (after every feature described itself): each
    // named shape is a getter, so the shapes it contains are references by then.
    const componentSchemas: Json = {}
    let named: Map<string, string> | undefined
    const namedShapes = () => {
      named ??= new Map([...components].map(([name, schema]) => [canonicalJson(schema), name]))
      return named
    }
    const registry: OpenApiRegistry = {
      describe(docs, shapes = {}) {
        for (const [key, doc] of Object.entries(docs)) {
          if (operations.has(key)) throw new Error(`OpenAPI: ${key} is described twice`)
          operations.set(key, doc)
        }
        for (const [name, schema] of Object.entries(shapes)) {
          if (components.has(name) || name === ERROR_COMPONENT) throw new Error(`OpenAPI: ${name} is named twice`)
          components.set(name, schema)
          named = undefined
          Object.defineProperty(componentSchemas, name, {
            enumerable: true,
            get: () => referenceNamed(schema, namedShapes(), true),
          })
        }
      },
      operations,
      components,
    }
    app.decorate('openapi', registry)
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
          schemas: componentSchemas,
        },
        security: [{ apiKey: [] }],
      },
      // Shared schemas become components; the error body gets its contract name instead of `def-0`.
      refResolver: {
        buildLocalReference: (json, _baseUri, _fragment, i) =>
          json.$id === ErrorSchema.$id ? ERROR_COMPONENT : `def-${i}`,
      },
      // Routes list the error schema object itself (`errors(...)`) and share shapes by value: point at
      // the named components instead of inlining a copy into every operation (a nameless type in clients).
      transform: ({ schema, url }) => ({ schema: schema && referenceRouteSchema(schema, namedShapes()), url }),
      transformObject: (document) =>
        finishDocument((document as { openapiObject: Json }).openapiObject, registry.operations),
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
