import fp from 'fastify-plugin'
import type { FastifyBodyParser, FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { AppError, badRequest, sendError } from '../core/errors.js'
import { parseBoundedJson } from './json-body.js'
import { registerCors } from './cors.js'

const BODYLESS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS'])

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * NUL characters in the JSON body are taken out rather than refused (400): for bodies that must
     * never be lost for their text, the crash reports (contract §6.3).
     */
    stripNul?: boolean
  }
}

/**
 * The house JSON body parser, with the depth, size and text rules of json-body.ts. Exported so a
 * feature that needs its own body limit for JSON (cloud save) can register the same parser with that
 * limit in its encapsulated scope.
 */
export const parseJsonBody: FastifyBodyParser<string> = (request, body, done) => {
  // Route before body: a request that matched no route is answered 404 or 405 whatever
  // it carries, and its body is not worth the time of parsing.
  if (request.is404) return done(null, undefined)
  const text = body as string
  if (text.trim() === '') return done(null, BODYLESS.has(request.method) ? undefined : {})
  try {
    done(null, parseBoundedJson(text, { stripNul: request.routeOptions.config.stripNul === true }))
  } catch (error) {
    done(error as AppError, undefined)
  }
}

/** Remote-config and localization keys run to 128 characters: past find-my-way's default of 100. */
export const MAX_PARAM_LENGTH = 256

const PATH_ERRORS: Record<string, string> = {
  // A percent-escape that does not decode as UTF-8, such as an encoded lone surrogate.
  FST_ERR_BAD_URL: 'must be valid percent-encoded UTF-8',
  FST_ERR_MAX_PARAM_LENGTH: `must be at most ${MAX_PARAM_LENGTH} characters per segment`,
}

/**
 * Fastify's `frameworkErrors`: a path the router cannot decode never reaches a route or the error
 * handler, and Fastify would answer it with its own body; this gives it the house error body.
 */
export function frameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const message = PATH_ERRORS[error.code]
  if (message === undefined) return sendError(request, reply, error)
  return sendError(request, reply, badRequest(`params ${message}`, '/', message))
}

/**
 * The tolerances the SDKs in the field need: a JSON content type on a bodiless GET or
 * DELETE, an empty JSON body meaning `{}`, any content type on a request without a body, CORS
 * preflights answered without an API key (cors.ts).
 */
export default fp(
  async (app) => {
    // Each game's allowed origins; preflights answered before the rate limit and the key (cors.ts).
    registerCors(app)

    // A POST or PUT with no body at all is validated as `{}`, so the client hears which field is missing.
    app.addHook('preValidation', (request, _reply, done) => {
      if (request.body === undefined && !BODYLESS.has(request.method)) request.body = {}
      done()
    })

    app.removeContentTypeParser(['application/json', 'text/plain'])
    app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJsonBody)
    // Anything else is fine on a request that carries no body; with a body it is unsupported
    // unless a feature registers its own parser (cloud save does for octet-stream).
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
      const bytes = body as Buffer
      if (bytes.length === 0 || BODYLESS.has(request.method) || request.is404) return done(null, undefined)
      done(
        new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', `Content-Type ${request.headers['content-type']} is not supported`),
        undefined,
      )
    })
  },
  { name: 'http', dependencies: ['config', 'errors', 'surfaces', 'game-registry'] },
)
