import { STATUS_CODES } from 'node:http'
import fp from 'fastify-plugin'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { isDatabaseUnavailable } from '../../db/dialect.js'
import { NAME_PATTERN } from '../schemas/common.js'
import { REQUEST_ID_HEADER } from './logging.js'
import { surfaceOf } from './paths.js'

/**
 * The one error type services and hooks throw. The error handler turns it, and every other error,
 * into the one error body: `{ statusCode, error, code, message, ...extra }` (`details` on validation errors).
 */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
    this.name = 'AppError'
  }
}

/** The 404 every service throws, so the code and message are the only parts a service chooses. */
export const notFound = (code: string, message: string, extra?: Record<string, unknown>) =>
  new AppError(404, code, message, extra)

/**
 * A validation error; `path` is the JSON pointer of the field, '/' when it concerns the request as a
 * whole. `detail` is the message in `details` when it differs: errors shaped like the validator's
 * name the request part in `message` (`body/x must be …`) and not in `details`.
 */
export const badRequest = (message: string, path = '/', detail = message) =>
  new AppError(400, 'VALIDATION_ERROR', message, { details: [{ path, message: detail }] })

/** Marker for the transient rate limit, which answers 429 with an empty body (compat). */
export class RateLimitedError extends Error {
  readonly statusCode = 429
}

/** The house error body from its parts: one builder for the handler, the hooks and the tests. */
export function errorBody(statusCode: number, code: string, message: string, extra: Record<string, unknown> = {}) {
  // Every VALIDATION_ERROR carries details, also one built without them (a Fastify error, a service).
  const details =
    code === 'VALIDATION_ERROR' && extra.details === undefined ? { details: [{ path: '/', message }] } : {}
  return { statusCode, error: STATUS_CODES[statusCode] ?? 'Error', code, message, ...details, ...extra }
}

interface ValidationIssue {
  instancePath: string
  message?: string
  params?: Record<string, unknown>
  keyword: string
}

/**
 * An optional field is a union with `null` (and `""` for strings): when the value fails the real
 * branch, the "must be null" / "must be equal to constant" of the absent branches is only noise.
 */
const isAbsentBranch = (issue: ValidationIssue) =>
  (issue.keyword === 'type' && issue.params?.type === 'null') ||
  (issue.keyword === 'const' && issue.params?.allowedValue === '')

/** Ajv's errors as `details`, with the missing property named in the path for `required`. */
function validationDetails(issues: ValidationIssue[]) {
  const seen = new Set<string>()
  const details: Array<{ path: string; message: string }> = []
  const relevant = issues.filter((issue) => issue.keyword !== 'anyOf' && issue.keyword !== 'oneOf')
  for (const issue of relevant) {
    // `required` and `additionalProperties` concern a property of the object Ajv points at: name it.
    const named =
      issue.keyword === 'required'
        ? `/${String(issue.params?.missingProperty)}`
        : issue.keyword === 'additionalProperties'
          ? `/${String(issue.params?.additionalProperty)}`
          : ''
    const path = `${issue.instancePath}${named}` || '/'
    if (
      isAbsentBranch(issue) &&
      relevant.some((other) => other.instancePath === issue.instancePath && !isAbsentBranch(other))
    ) {
      continue
    }
    let message = issue.message ?? 'is invalid'
    if (issue.keyword === 'additionalProperties') message = 'is not a known property'
    // The name rule's pattern is long and unreadable: say what it refuses.
    if (issue.keyword === 'pattern' && issue.params?.pattern === NAME_PATTERN) {
      message = 'must not hold control, line-break, bidirectional or invisible characters'
    }
    if (issue.keyword === 'enum' && Array.isArray(issue.params?.allowedValues)) {
      message = `must be one of: ${(issue.params.allowedValues as unknown[]).join(', ')}`
    }
    const key = `${path} ${message}`
    if (seen.has(key)) continue
    seen.add(key)
    details.push({ path, message })
  }
  return details
}

const FASTIFY_CODES: Record<string, [number, string]> = {
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'INVALID_JSON'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'INVALID_JSON'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'PAYLOAD_TOO_LARGE'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'UNSUPPORTED_MEDIA_TYPE'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'VALIDATION_ERROR'],
}

const CODE_BY_STATUS: Record<number, string> = {
  400: 'VALIDATION_ERROR',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
}

const RETRY_AFTER_SECONDS = '5'

/**
 * The coded 429s of the app API that may carry `Retry-After`. The Unity and Unreal SDKs retry every
 * other coded 429 after its `Retry-After`: a player locked out of sign-in for 15 minutes would hang
 * the game that long per retry and send the password again each time. Every other coded 429 gives its
 * wait only as `retryAfterSeconds` in the body; the admin API (the console) keeps the header.
 */
const APP_RETRYABLE_429 = new Set(['RUN_RATE_LIMITED', 'RUN_CAPACITY_REACHED'])

/** The headers of an AppError as sent: for a coded 429, `Retry-After` comes from `retryAfterSeconds` where allowed. */
function appErrorHeaders(request: FastifyRequest, error: AppError): Record<string, string> {
  if (error.statusCode !== 429) return error.headers
  const headers = Object.fromEntries(
    Object.entries(error.headers).filter(([name]) => name.toLowerCase() !== 'retry-after'),
  )
  const seconds = error.extra.retryAfterSeconds
  if (typeof seconds === 'number' && (APP_RETRYABLE_429.has(error.code) || surfaceOf(request) !== 'app')) {
    headers['retry-after'] = String(seconds)
  }
  return headers
}

/** Answers any error in the house shape, so a route never writes an error body by hand. */
export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  error: FastifyError | AppError | RateLimitedError | Error,
) {
  // Also here: a path the router cannot decode is answered before any hook runs.
  reply.header(REQUEST_ID_HEADER, request.id)
  if (error instanceof RateLimitedError) {
    // @fastify/rate-limit has already set Retry-After and the x-ratelimit-* headers.
    return reply.code(429).send()
  }
  if (error instanceof AppError) {
    reply.headers(appErrorHeaders(request, error))
    if (error.statusCode === 401 && error.code === 'SESSION_REQUIRED') reply.header('www-authenticate', 'Bearer')
    return reply.code(error.statusCode).send(errorBody(error.statusCode, error.code, error.message, error.extra))
  }
  const fastifyError = error as FastifyError
  if (fastifyError.validation) {
    const details = validationDetails(fastifyError.validation as ValidationIssue[])
    const first = details[0] ?? { path: '/', message: 'is invalid' }
    const context = fastifyError.validationContext ?? 'body'
    const where = first.path === '/' ? context : `${context}${first.path}`
    return reply.code(400).send(errorBody(400, 'VALIDATION_ERROR', `${where} ${first.message}`, { details }))
  }
  const mapped = fastifyError.code ? FASTIFY_CODES[fastifyError.code] : undefined
  if (mapped) return reply.code(mapped[0]).send(errorBody(mapped[0], mapped[1], error.message))
  if (isDatabaseUnavailable(error)) {
    request.log.error({ err: error }, 'database unavailable')
    reply.header('retry-after', RETRY_AFTER_SECONDS)
    return reply.code(503).send(errorBody(503, 'SERVICE_UNAVAILABLE', 'The database is unavailable, try again shortly'))
  }
  const status = fastifyError.statusCode
  if (status && status >= 400 && status < 500) {
    return reply.code(status).send(errorBody(status, CODE_BY_STATUS[status] ?? 'BAD_REQUEST', error.message))
  }
  request.log.error({ err: error }, 'unhandled error')
  // The id finds the log line above: an operator asked about a 500 needs nothing else from the player.
  return reply.code(500).send(
    errorBody(500, 'INTERNAL_ERROR', `Internal server error: report request id ${request.id} to the operator`, {
      requestId: request.id,
    }),
  )
}

/** Routes only the 404 handler can see: a known path with another method is a 405. */
const PROBE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const

export default fp(
  async (app) => {
    app.setErrorHandler((error, request, reply) => sendError(request, reply, error as Error))
    app.setNotFoundHandler((request, reply) => {
      const path = request.url.split('?', 1)[0]
      const allowed = PROBE_METHODS.filter(
        (method) => method !== request.method && app.findRoute({ method, url: path }) !== null,
      )
      if (allowed.length > 0) {
        reply.header('allow', allowed.join(', '))
        return sendError(
          request,
          reply,
          new AppError(405, 'METHOD_NOT_ALLOWED', `Method ${request.method} is not allowed here`),
        )
      }
      return sendError(request, reply, new AppError(404, 'NOT_FOUND', `Route ${request.method}:${path} not found`))
    })
  },
  { name: 'errors' },
)
