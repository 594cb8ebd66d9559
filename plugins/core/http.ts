import fp from 'fastify-plugin'
import type { FastifyBodyParser } from 'fastify'
import cors from '@fastify/cors'
import secureJson from 'secure-json-parse'
import { AppError } from './errors.js'

const BODYLESS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS'])

/**
 * The house JSON body parser. Exported so a feature that needs its own body limit for JSON
 * (cloud save) can register the same parser with that limit in its encapsulated scope.
 */
export const parseJsonBody: FastifyBodyParser<string> = (request, body, done) => {
  const text = body as string
  if (text.trim() === '') return done(null, BODYLESS.has(request.method) ? undefined : {})
  try {
    done(null, secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' }))
  } catch {
    done(new AppError(400, 'INVALID_JSON', 'Request body is not valid JSON'), undefined)
  }
}

/**
 * The tolerances the SDKs in the field need (API.md §1): a JSON content type on a bodiless GET or
 * DELETE, an empty JSON body meaning `{}`, any content type on a request without a body, CORS
 * preflights answered without an API key.
 */
export default fp(
  async (app) => {
    const origins = app.config.CORS_ORIGINS.split(',').map((o) => o.trim()).filter(Boolean)
    await app.register(cors, {
      origin: origins.includes('*') ? '*' : origins,
      methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      allowedHeaders: ['Content-Type', 'Authorization', 'X-API-Key', 'X-Admin-Key', 'If-None-Match', 'Accept'],
      exposedHeaders: ['ETag', 'Retry-After', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'X-Cloud-Save-Revision'],
      maxAge: 600,
    })

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
      if (bytes.length === 0 || BODYLESS.has(request.method)) return done(null, undefined)
      done(
        new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', `Content-Type ${request.headers['content-type']} is not supported`),
        undefined,
      )
    })
  },
  { name: 'http', dependencies: ['config', 'errors'] },
)
