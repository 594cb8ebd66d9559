import { STATUS_CODES } from 'node:http'
import { ErrorSchema } from '../schemas/common.js'
import {
  componentRef,
  isObject,
  nullableEnum,
  stripPropertyNames,
  unrequireDefaults,
  walkSchema,
  type Json,
} from './schemas.js'

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

const OPERATION_DOC = Symbol('outpost.operationDoc')

/** A route schema that carries its operation's docs, for the OpenAPI plugin to read when the route registers. */
export function withOperationDoc<S extends object>(schema: S, doc: OperationDoc): S {
  return Object.assign(schema, { [OPERATION_DOC]: doc })
}

/** The docs a route schema carries (withOperationDoc), if any. */
export function operationDocOf(schema: unknown): OperationDoc | undefined {
  return schema && typeof schema === 'object'
    ? (schema as { [OPERATION_DOC]?: OperationDoc })[OPERATION_DOC]
    : undefined
}

/** The key of an operation as the document writes it: `GET /api/v1/admin/news/{id}` for `/api/v1/admin/news/:id`. */
export const operationKey = (method: string, url: string) =>
  `${method.toUpperCase()} ${url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`

/** Operation docs keyed by `'<METHOD> <path as in the document>'`, e.g. `'GET /api/v1/app/leaderboard/top'`. */
export type OperationDocs = Record<string, OperationDoc>

/** The tag of the health routes, which belong to no feature. */
export const HEALTH_TAG = 'Health'
/** An admin feature's tag, kept apart from its app tag so the UI lists the game API first. */
export const adminTag = (feature: string) => `Admin · ${feature}`
const isAdminTag = (tag: string) => tag.startsWith('Admin · ')

/** One sentence under each tag in the UI: whose API it is and which key it takes. */
function tagDescription(tag: string): string {
  if (tag === HEALTH_TAG) return 'Liveness and readiness checks for load balancers and monitoring: no key needed.'
  if (isAdminTag(tag)) {
    return `Admin API of ${tag.slice('Admin · '.length)}, for operators and the console: X-Admin-Key or an operator session.`
  }
  return `Game API: what the game client calls, with the game's X-API-Key (and the player's session where needed).`
}

/**
 * Every tag an operation may carry, in the order the UI lists them: the features' own tags (from
 * their manifests, in registration order), then their admin tags, then health.
 */
export function operationTagOrder(featureTags: readonly string[]): string[] {
  return [...featureTags, ...featureTags.map(adminTag), HEALTH_TAG]
}

/** The name of the one error body in components/schemas; every error response points at it. */
export const ERROR_COMPONENT = 'ErrorResponse'

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
      `400 \`VALIDATION_ERROR\` (with \`details\`) or \`INVALID_JSON\` when the request does not match the schema${admin ? ' (unknown fields and query parameters included)' : ''}`,
    )
  }
  if (statuses.includes('401'))
    lines.push(`401 \`UNAUTHORIZED\` when ${admin ? 'X-Admin-Key' : 'X-API-Key'} is missing or wrong`)
  if (statuses.includes('429')) {
    lines.push(
      `429 with an empty body over ${admin ? 'ADMIN_RATE_LIMIT_PER_SECOND per admin credential' : 'RATE_LIMIT_PER_SECOND per IP'}: retry after Retry-After seconds`,
    )
  }
  return lines
}

const OCTET = 'application/octet-stream'

/**
 * Raw bytes are a binary string in OpenAPI, whatever body schema the route validates its JSON form
 * with: a route that `consumes` JSON and bytes would otherwise show the JSON object (and its example)
 * under application/octet-stream too. A fresh object: the generator shares one media object among a
 * route's content types, and the JSON example must not land on the bytes.
 */
function binaryMedia(content: Json | undefined, description: string) {
  const media = content?.[OCTET]
  if (!media) return
  const binary = media.schema?.type === 'string' && media.schema?.format === 'binary'
  content![OCTET] = {
    schema: binary ? media.schema : { type: 'string', format: 'binary', description },
    ...(binary && media.example !== undefined && { example: media.example }),
  }
}

/** `409 \`CONFLICT\``, `401 \`SESSION_REQUIRED\``: an error code named with its status in a description. */
const CODE_MENTION = /\b([45]\d\d) `([A-Z][A-Z0-9_]+)`/g

/**
 * The error answers of an operation as a list under the prose, one line per status: the codes the
 * description names (in its sentences, where they are explained) and the answers every route of the
 * surface gives (commonAnswers). A reader finds a code by its status instead of reading for it.
 */
export function errorList(description: string, path: string, statuses: string[]): string {
  const byStatus = new Map<string, string[]>()
  for (const [, status, code] of description.matchAll(CODE_MENTION)) {
    const codes = byStatus.get(status!) ?? []
    if (!codes.includes(`\`${code}\``)) codes.push(`\`${code}\``)
    byStatus.set(status!, codes)
  }
  for (const line of commonAnswers(path, statuses)) {
    const [status, rest] = [line.slice(0, 3), line.slice(4)]
    const others = (byStatus.get(status) ?? []).filter((code) => !rest.includes(code))
    byStatus.set(status, [others.length ? `${rest}; also ${others.join(', ')}` : rest])
  }
  if (byStatus.size === 0) return ''
  const lines = [...byStatus]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, codes]) => `- **${status}** ${codes.join(', ')}`)
  return `\n\n**Errors** (the body is an ${ERROR_COMPONENT}; its \`code\` is for programs):\n${lines.join('\n')}`
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
export function finishDocument(
  doc: Json,
  operationDocs: ReadonlyMap<string, OperationDoc> = new Map(),
  tagOrder: readonly string[] = [],
): Json {
  const used = new Set<string>()
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const [method, op] of Object.entries(item)) {
      if (!op || typeof op !== 'object' || !('responses' in op)) continue
      op.tags = operationTags(op.tags)
      op.tags?.forEach((tag: string) => used.add(tag))
      op.operationId ??= operationId(method, path, op.tags)
      binaryMedia(op.requestBody?.content, 'The raw bytes, sent as they are (not JSON)')
      for (const response of Object.values(op.responses as Record<string, Json>)) {
        binaryMedia(response.content, 'The raw bytes, as they were stored')
      }
      const described = operationDocs.get(`${method.toUpperCase()} ${path}`)
      if (described) applyOperationDoc(op, described)
      if (op.description) op.description += errorList(op.description, path, Object.keys(op.responses))
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
  const tags = [...tagOrder.filter((tag) => used.has(tag)), ...[...used].filter((t) => !tagOrder.includes(t))]
  doc.tags = tags.map((name) => ({ name, description: tagDescription(name) }))
  // The game's API first, the operators' apart: Redoc and Scalar draw these groups, and Swagger UI
  // keeps the tag order (app tags, then admin tags, then health) with each admin tag saying what it is.
  const groups = [
    { name: 'Game API (/api/v1/app)', tags: tags.filter((tag) => !isAdminTag(tag) && tag !== HEALTH_TAG) },
    { name: 'Admin API (/api/v1/admin)', tags: tags.filter(isAdminTag) },
    { name: 'Health', tags: tags.filter((tag) => tag === HEALTH_TAG) },
  ]
  doc['x-tagGroups'] = groups.filter((group) => group.tags.length)
  return doc
}
