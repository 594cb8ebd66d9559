import fp from 'fastify-plugin'
import rateLimit from '@fastify/rate-limit'
import { Redis } from 'ioredis'
import { RateLimitedError } from './errors.js'
import { isApiPath } from './paths.js'

/**
 * Per-IP limit on /api/v1/* (API.md §7): 429 with an empty body, Retry-After and x-ratelimit-*.
 * Registered as a root hook (not per route) so that unknown paths are limited too: the limit comes
 * before the API key and before routing. With REDIS_URL the counters hold across instances.
 */
export default fp(
  async (app) => {
    const { RATE_LIMIT_ENABLED, RATE_LIMIT_PER_SECOND, REDIS_URL } = app.config
    if (!RATE_LIMIT_ENABLED) return
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
    const limiter = app.rateLimit({ max: RATE_LIMIT_PER_SECOND, timeWindow: 1000 })
    app.addHook('onRequest', async (request, reply) => {
      if (request.method === 'OPTIONS' || !isApiPath(request.url) || request.routeOptions.config.public) return
      await limiter.call(app, request, reply)
    })
  },
  { name: 'rate-limit', dependencies: ['config', 'errors'] },
)
