import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import fp from 'fastify-plugin'

/**
 * Request ids and the one log line per request. A request keeps the `X-Request-Id` it came with
 * (a proxy's or another service's, so one request can be followed across them) when it is at most
 * 128 printable ASCII characters, else gets a UUID; the id is sent back as `X-Request-Id` on every
 * answer, is the `reqId` of every log line the request writes, and is in every 500 body.
 */
export const REQUEST_ID_HEADER = 'x-request-id'
const VALID_REQUEST_ID = /^[\x20-\x7e]{1,128}$/

/** Fastify's `genReqId` (with `requestIdHeader: false`, so an invalid header is never taken as is). */
export function requestIdOf(raw: IncomingMessage): string {
  const given = raw.headers[REQUEST_ID_HEADER]
  return typeof given === 'string' && VALID_REQUEST_ID.test(given) ? given : randomUUID()
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Probes (health, metrics): polled every few seconds, so their request line is logged at debug. */
    probe?: boolean
  }
}

/** pino's level numbers: a line is written when its level's number is at least the logger's. */
const LEVELS: Record<string, number> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Infinity,
}

/**
 * Fastify's own request logging (two lines, `incoming request` and `request completed`) is off
 * (`disableRequestLogging`); this writes one line when the answer has gone, which pino-pretty shows
 * as one readable line on a terminal and which stays one JSON object otherwise.
 */
export default fp(
  async (app) => {
    // Callback hooks, not async ones: they run on every request, and a promise per request costs.
    app.addHook('onRequest', (request, reply, done) => {
      reply.header(REQUEST_ID_HEADER, request.id)
      done()
    })
    app.addHook('onResponse', (request, reply, done) => {
      // The line's fields are gathered only when it will be written (request.ip parses proxy headers),
      // and above info (a production log at warn) not even the route's options are looked at.
      const threshold = LEVELS[request.log.level] ?? 0
      if (threshold > LEVELS.info) return done()
      const level = request.routeOptions.config.probe ? 'debug' : 'info'
      if (LEVELS[level] < threshold) return done()
      const ms = Math.round(reply.elapsedTime * 10) / 10
      request.log[level](
        {
          method: request.method,
          url: request.url,
          statusCode: reply.statusCode,
          responseTimeMs: ms,
          remoteAddress: request.ip,
        },
        `${request.method} ${request.url} ${reply.statusCode} ${ms} ms`,
      )
      done()
    })
  },
  { name: 'logging' },
)
