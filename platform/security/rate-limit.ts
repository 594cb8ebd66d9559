import fp from 'fastify-plugin'
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify'
import rateLimit, { type FastifyRateLimitStore } from '@fastify/rate-limit'
import { Redis } from 'ioredis'
import { RateLimitedError } from '../core/errors.js'
import { surfaceOf } from '../core/paths.js'
import type { Channel } from '../cluster/cluster.js'
import { DEFAULT_GAME } from '../../db/games.js'
import type { Game } from '../games/registry.js'
import {
  BUCKET_SCRIPT,
  MemoryBucketStore,
  tokenInterval,
  type BucketAnswer,
  type CounterRequest,
} from './token-bucket.js'

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Counts an admin request against ADMIN_RATE_LIMIT_PER_SECOND: per credential once
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
 * How long one counter update may take before the request passes uncounted. A stalled Redis must
 * hold no request longer than 100 ms (it fails open); a healthy one answers in well under a millisecond.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 50
/**
 * Every rate-limit key in Redis starts with this, then the limit's name: `outpost-rl-app-203.0.113.7`
 * (the `default` game's), `outpost-rl-app-b-203.0.113.7` (game `b`'s), `outpost-rl-admin-…`.
 */
export const REDIS_PREFIX = 'outpost-rl-'

type StoreCallback = Parameters<FastifyRateLimitStore['incr']>[1]
type BucketRedis = Redis & {
  outpostBucket(
    key: string,
    interval: number,
    max: number,
    callback: (error: Error | null, result?: number[]) => void,
  ): void
}

/**
 * Says when the counters' keeper (Redis, or the cluster primary) stops answering and when it answers
 * again, once each per outage: during an outage every request fails, and a line per request would
 * bury the log.
 */
class CounterOutage {
  private failing = false
  constructor(
    private readonly log: FastifyBaseLogger,
    /** What keeps the counters, as the log names it. */
    private readonly keeper: string,
    /** False until the keeper's first answer (a Redis client connecting). */
    private connected: boolean,
  ) {}

  /**
   * A counter update that fails before the client's first connection is ready is the start-up, not
   * an outage: a Redis that is down or stalled then shows as a connection error event instead.
   */
  commandFailed(err: Error): void {
    if (this.connected) this.failed(err)
  }

  failed(err: Error): void {
    if (this.failing) return
    this.failing = true
    this.log.warn({ err }, `${this.keeper} is not answering: requests pass uncounted until it does`)
  }

  answered(): void {
    this.connected = true
    if (!this.failing) return
    this.failing = false
    this.log.info(`${this.keeper} answers again: requests are counted again`)
  }
}

/**
 * The buckets in Redis (token-bucket.ts: one script call per request, on Redis's clock), each update
 * reported to the outage log. Keys are `outpost-rl-<limit>-<client>`, the limit named by the
 * `groupId` it was made with.
 */
class RedisBucketStore implements FastifyRateLimitStore {
  constructor(
    private readonly redis: BucketRedis,
    private readonly outage: CounterOutage,
    private readonly prefix = REDIS_PREFIX,
  ) {}

  incr(key: string, callback: StoreCallback, timeWindow: number, max: number): void {
    this.redis.outpostBucket(this.prefix + key, tokenInterval(timeWindow, max), max, (error, result) => {
      if (error) {
        this.onError(error)
        callback(error)
        return
      }
      this.outage.answered()
      callback(null, { current: result![0], ttl: result![1] })
    })
  }

  child(routeOptions: Parameters<FastifyRateLimitStore['child']>[0]): FastifyRateLimitStore {
    const { groupId } = routeOptions as { groupId?: string }
    return new RedisBucketStore(this.redis, this.outage, `${REDIS_PREFIX}${groupId ?? 'route'}-`)
  }

  private onError(error: Error): void {
    this.outage.commandFailed(error)
    // A timed-out command means the connection has stopped answering (a stalled server keeps it open).
    // Dropping it makes the client reconnect and pass its ready check first; until then, with the
    // offline queue off, every update fails at once instead of waiting out its own timeout, and the
    // commands written to the dead connection are not kept piling up in memory.
    if (error.message === 'Command timed out' && this.redis.status === 'ready') this.redis.disconnect(true)
  }
}

/** How long a worker waits for the primary's counter before the request passes uncounted (as with Redis). */
export const PRIMARY_COUNTER_TIMEOUT_MS = REDIS_COMMAND_TIMEOUT_MS

/**
 * The counter updates of one turn of the event loop, sent to the primary as one message: under load
 * a worker takes many requests per turn, and one IPC round trip per request cost about as much CPU
 * as serving a cached route.
 */
class CounterBatch {
  private pending: Array<{ request: CounterRequest; callback: StoreCallback }> = []

  constructor(
    private readonly channel: Channel,
    private readonly outage: CounterOutage,
  ) {}

  add(request: CounterRequest, callback: StoreCallback): void {
    // The requests whose hooks run in this turn join; the batch leaves right after it (setImmediate).
    if (this.pending.length === 0) setImmediate(() => this.send())
    this.pending.push({ request, callback })
  }

  private send(): void {
    const batch = this.pending
    this.pending = []
    this.channel
      .request<BucketAnswer[]>(
        'rate-limit',
        batch.map((item) => item.request),
        PRIMARY_COUNTER_TIMEOUT_MS,
      )
      .then(
        (results) => {
          this.outage.answered()
          batch.forEach((item, i) => item.callback(null, results[i]))
        },
        (error: Error) => {
          this.outage.failed(error)
          for (const item of batch) item.callback(error)
        },
      )
  }
}

/**
 * The buckets of every worker of one instance, kept in the cluster primary: a worker asks it over
 * IPC (in batches, see CounterBatch). The primary keeps them as one process would (MemoryBuckets),
 * so the limits count exactly as in a single process. A primary that does not answer within
 * PRIMARY_COUNTER_TIMEOUT_MS lets the request pass, as a stalled Redis does.
 */
class PrimaryStore implements FastifyRateLimitStore {
  constructor(
    private readonly batch: CounterBatch,
    private readonly prefix = '',
  ) {}

  incr(key: string, callback: StoreCallback, timeWindow: number, max: number): void {
    this.batch.add({ key: this.prefix + key, timeWindow, max }, callback)
  }

  child(routeOptions: Parameters<FastifyRateLimitStore['child']>[0]): FastifyRateLimitStore {
    // One set of buckets in the primary for every limit, each limit's keys led by its name (as in Redis).
    const { groupId } = routeOptions as { groupId?: string }
    return new PrimaryStore(this.batch, `${groupId ?? 'route'}-`)
  }
}

/**
 * A limit of `perSecond` sustained with a burst of `burstSeconds`' worth, in the plugin's terms:
 * `max` is the bucket's capacity (shown as x-ratelimit-limit), `timeWindow` the time it takes to
 * fill (token-bucket.ts).
 */
export const bucketOf = (perSecond: number, burstSeconds: number) => ({
  max: perSecond * burstSeconds,
  timeWindow: burstSeconds * 1000,
})

function createRedis(url: string, outage: CounterOutage): BucketRedis {
  const redis = new Redis(url, {
    connectTimeout: 1000,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    // Never queue an update while disconnected: the request it counts has already passed.
    enableOfflineQueue: false,
    // Nor replay the updates a dropped connection left unanswered: they would count in a later window.
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 1,
  })
  // Connection errors repeat on every reconnect attempt; the outage log says it once.
  redis.on('error', (err: Error) => outage.failed(err))
  redis.on('ready', () => outage.answered())
  redis.defineCommand('outpostBucket', { numberOfKeys: 1, lua: BUCKET_SCRIPT })
  return redis as BucketRedis
}

/**
 * Per-IP limit on the app API, per game: a token bucket per client and game (token-bucket.ts), the
 * game's `rateLimitPerSecond` (RATE_LIMIT_PER_SECOND unless the game set its own, contract §14)
 * sustained with a burst of RATE_LIMIT_BURST_SECONDS' worth; past it 429 with an empty body,
 * Retry-After and x-ratelimit-* (limit: the burst; remaining: whole tokens left; reset: seconds until
 * the bucket is full again, or on a 429 until the next request may pass, as Retry-After).
 * A root hook (not per route) so that unknown paths are limited too: the limit comes before the API
 * key check and before routing. It decides the game itself, from the key, in memory
 * (`app.games.forKey`, the lookup api-key.ts would make, whose answer it leaves on the request): an
 * address hammering game A does not spend its allowance for game B. A key that names no game (absent,
 * unknown, revoked) counts against the `default` game's limit, as every request did before games, so
 * a wrong key buys no fresh allowance. Each game's limit is its own `groupId` (`app` for `default`,
 * `app-<game>` for the others), which leads its keys in every store. Which requests it counts is
 * decided by the matched route's surface (paths.ts), never by the raw target. The admin API has its
 * own limit (`limitAdmin`), per credential across games. With
 * REDIS_URL the counters hold across instances; a Redis that is down or stalls lets requests pass
 * within REDIS_COMMAND_TIMEOUT_MS. Without Redis, the workers of one instance (WORKERS > 1) share
 * counters kept in the cluster primary, which fail open the same way.
 */
export default fp(
  async (app) => {
    const { RATE_LIMIT_ENABLED, RATE_LIMIT_BURST_SECONDS, ADMIN_RATE_LIMIT_PER_SECOND, REDIS_URL } = app.config
    if (!RATE_LIMIT_ENABLED) {
      app.decorate('limitAdmin', async () => {})
      return
    }
    let store: (new () => FastifyRateLimitStore) | undefined
    const channel = app.cluster
    if (channel && !REDIS_URL) {
      // Several workers and no Redis: the primary keeps the counters (Redis, when set, holds them for
      // every worker of every instance already).
      const outage = new CounterOutage(app.log, "the cluster primary's rate-limit counters", true)
      const batch = new CounterBatch(channel, outage)
      store = class extends PrimaryStore {
        constructor() {
          super(batch)
        }
      }
    } else if (REDIS_URL) {
      const outage = new CounterOutage(app.log, 'rate-limit Redis', false)
      const redis = createRedis(REDIS_URL, outage)
      // Start counting from the first request: wait for the first connection, or its first failure
      // (the client's connect and command timeouts bound that wait; the server starts either way).
      await new Promise<void>((resolve) => {
        const settled = () => {
          redis.off('ready', settled)
          redis.off('error', settled)
          resolve()
        }
        redis.on('ready', settled)
        redis.on('error', settled)
      })
      app.addHook('onClose', async () => {
        redis.disconnect()
      })
      store = class extends RedisBucketStore {
        constructor() {
          super(redis, outage)
        }
      }
    } else {
      const clock = () => app.clock.now()
      store = class extends MemoryBucketStore {
        constructor() {
          super(clock)
        }
      }
    }
    const { games } = app
    await app.register(rateLimit, {
      global: false,
      store,
      // A Redis outage must not take the game down: requests pass unlimited until it is back.
      skipOnError: true,
      errorResponseBuilder: (request) => {
        if (request.adminLimitKey === undefined) {
          app.metrics.rateLimitRejected('player', ((request.game as Game | null) ?? games.default).id)
        } else app.metrics.rateLimitRejected('admin', '')
        return new RateLimitedError('Too many requests')
      },
    })
    // `groupId` names each limit's keys in every store (the stores' `child`); the plugin reads a
    // groupId for its key only from a route's own config, which these limits have none of. A game's
    // limit is made on its first request and made again when its rate changes (its buckets stay).
    type Limit = ReturnType<typeof app.rateLimit>
    const limits = games.scoped((): { perSecond: number; limit: Limit | null } => ({ perSecond: 0, limit: null }))
    const playerLimit = (game: Game): Limit => {
      const held = limits.of(game)
      const { rateLimitPerSecond } = game.settings
      if (held.perSecond !== rateLimitPerSecond) {
        held.perSecond = rateLimitPerSecond
        held.limit = app.rateLimit({
          ...bucketOf(rateLimitPerSecond, RATE_LIMIT_BURST_SECONDS),
          groupId: game.id === DEFAULT_GAME ? 'app' : `app-${game.id}`,
        })
      }
      return held.limit!
    }
    const adminLimit = app.rateLimit({
      ...bucketOf(ADMIN_RATE_LIMIT_PER_SECOND, RATE_LIMIT_BURST_SECONDS),
      groupId: 'admin',
      keyGenerator: (request) => request.adminLimitKey ?? `admin-ip:${request.ip}`,
    })
    app.decorate(
      'limitAdmin',
      async function (request: FastifyRequest, reply: FastifyReply, credential: string | null) {
        request.adminLimitKey = credential === null ? `admin-ip:${request.ip}` : `admin:${credential}`
        await adminLimit.call(app, request, reply)
      },
    )
    app.addHook('onRequest', async (request, reply) => {
      if (surfaceOf(request) !== 'app') return
      const game = games.forKey(request.headers['x-api-key'])
      if (game) request.game = game
      await playerLimit(game ?? games.default).call(app, request, reply)
    })
  },
  {
    name: 'rate-limit',
    dependencies: ['config', 'clock', 'errors', 'surfaces', 'metrics', 'cluster', 'game-registry'],
  },
)
