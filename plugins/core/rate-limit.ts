import fp from 'fastify-plugin'
import rateLimit from '@fastify/rate-limit'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Redis } from 'ioredis'
import { RateLimitedError } from './errors.js'
import { surfaceOf } from './paths.js'

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Counts an admin request (API.md §7) against ADMIN_RATE_LIMIT_PER_SECOND: per credential once
     * the caller has shown one (`credential` names it, never the secret itself), else per client IP.
     * Rejects with the empty-body 429 past the limit.
     */
    limitAdmin(request: FastifyRequest, reply: FastifyReply, credential: string | null): Promise<void>
  }
  interface FastifyRequest {
    /** Who the admin limit counted this request against (see `limitAdmin`). */
    adminLimitKey?: string
  }
}

/**
 * Per-IP limit on the app API (API.md §7): 429 with an empty body, Retry-After and x-ratelimit-*.
 * A root hook (not per route) so that unknown paths are limited too: the limit comes before the API
 * key and before routing. Which requests it counts is decided by the matched route's surface
 * (paths.ts), never by the raw target. With REDIS_URL the counters hold across instances.
 */
export default fp(
  async (app) => {
    const { RATE_LIMIT_ENABLED, RATE_LIMIT_PER_SECOND, ADMIN_RATE_LIMIT_PER_SECOND, REDIS_URL } = app.config
    if (!RATE_LIMIT_ENABLED) {
      app.decorate('limitAdmin', async () => {})
      return
    }
    const redis = REDIS_URL
      ? new Redis(REDIS_URL, { connectTimeout: 1000, maxRetriesPerRequest: 1, enableOfflineQueue: false })
      : undefined
    if (redis) {
      redis.on('error', (err) => app.log.warn({ err }, 'rate-limit redis error'))
      app.addHook('onClose', async () => {
        redis.disconnect()
      })
    }
    await app.register(rateLimit, {
      global: false,
      redis,
      nameSpace: 'outpost-rl-',
      // A Redis outage must not take the game down: requests pass unlimited until it is back.
      skipOnError: true,
      errorResponseBuilder: () => new RateLimitedError('Too many requests'),
    })
    const playerLimit = app.rateLimit({ max: RATE_LIMIT_PER_SECOND, timeWindow: 1000 })
    // One store holds both limits: admin keys carry a prefix no IP address can have.
    const adminLimit = app.rateLimit({
      max: ADMIN_RATE_LIMIT_PER_SECOND,
      timeWindow: 1000,
      keyGenerator: (request) => request.adminLimitKey ?? `admin-ip:${request.ip}`,
    })
    app.decorate('limitAdmin', async function (request: FastifyRequest, reply: FastifyReply, credential: string | null) {
      request.adminLimitKey = credential === null ? `admin-ip:${request.ip}` : `admin:${credential}`
      await adminLimit.call(app, request, reply)
    })
    app.addHook('onRequest', async (request, reply) => {
      if (surfaceOf(request) === 'app') await playerLimit.call(app, request, reply)
    })
  },
  { name: 'rate-limit', dependencies: ['config', 'errors', 'surfaces'] },
)
