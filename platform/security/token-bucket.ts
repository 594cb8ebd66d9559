import type { FastifyRateLimitStore } from '@fastify/rate-limit'

/**
 * The rate limits' token bucket, one algorithm for the three places its counters can live: this
 * process, the cluster primary (WORKERS > 1) and Redis (the Lua script below does the same integer
 * steps). A bucket holds up to `max` tokens and gains one every `timeWindow / max` ms (the sustained
 * rate); a request takes one, and is refused when none is left. A client that has been quiet can
 * thus send `max` requests at once, then keeps the sustained rate.
 *
 * It is kept as GCRA does it: one number per key, the time at which the bucket will be full again
 * (`full`, in microseconds), never in the past for a bucket that is not full. A key with no state is
 * a full bucket, so a store may forget a key once it is full (Redis lets it expire then).
 *
 * The answer is in the terms of the rate-limit plugin that reads it: `current` is what the bucket
 * has given out (`max` minus the whole tokens left; over `max` when refused), `ttl` the ms until the
 * bucket is full again, or, when refused, until the next request may pass (Retry-After).
 */

/** The answer in the rate-limit plugin's terms (above), so it reads every store's answer alike. */
export interface BucketAnswer {
  current: number
  ttl: number
}

/** Microseconds between two tokens: the plugin's window (full refill time, ms) over its capacity. */
export const tokenInterval = (timeWindow: number, max: number) => Math.max(1, Math.round((timeWindow * 1000) / max))

/**
 * Takes a token from the bucket whose `full` time is given, at `now` (µs). Writes the answer into
 * `answer` (no allocation on the request path) and returns the bucket's new `full` time (the old one
 * when refused).
 */
export function takeToken(full: number, now: number, interval: number, max: number, answer: BucketAnswer): number {
  const next = Math.max(full, now) + interval
  const horizon = max * interval
  if (next - now > horizon) {
    answer.current = max + 1
    answer.ttl = Math.ceil((next - now - horizon) / 1000)
    return full
  }
  answer.current = max - Math.floor((horizon - (next - now)) / interval)
  answer.ttl = Math.ceil((next - now) / 1000)
  return next
}

/**
 * The same steps in Redis, in one round trip: KEYS[1] the bucket, ARGV the interval (µs) and the
 * capacity. The time is Redis's own (TIME), so every instance counts on one clock; a third argument
 * gives the time instead (µs), for a test to run the script and `takeToken` on the same timeline.
 * The key expires when its bucket is full again.
 */
export const BUCKET_SCRIPT = `
local interval = tonumber(ARGV[1])
local max = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000000 + tonumber(time[2])
end
local full = tonumber(redis.call('GET', KEYS[1])) or now
local later = math.max(full, now) + interval
local horizon = max * interval
if later - now > horizon then
  return {max + 1, math.ceil((later - now - horizon) / 1000)}
end
local ttl = math.ceil((later - now) / 1000)
redis.call('SET', KEYS[1], string.format('%.0f', later), 'PX', ttl)
return {max - math.floor((horizon - (later - now)) / interval), ttl}
`

/** This process's clock in microseconds (what the in-memory buckets count in). */
export const nowMicros = () => Math.round((performance.timeOrigin + performance.now()) * 1000)

/** A bucket kept in memory: its full time and its last answer, handed out as the plugin's result. */
interface Bucket extends BucketAnswer {
  full: number
}

/**
 * Buckets in memory, for one process or for the cluster primary: at most `maxKeys` keys. When a new
 * key finds the map full, the buckets that are full again (the same as no entry) are dropped, and
 * then the oldest keys until a tenth of the room is free (their clients get a full bucket back: a
 * rare gift, for bounded memory), so that the scan runs at most once per maxKeys / 10 new keys.
 */
export class MemoryBuckets {
  private readonly buckets = new Map<string, Bucket>()

  constructor(
    private readonly maxKeys: number,
    private readonly clock: () => number = nowMicros,
  ) {}

  get size(): number {
    return this.buckets.size
  }

  take(key: string, timeWindow: number, max: number): BucketAnswer {
    const now = this.clock()
    let bucket = this.buckets.get(key)
    if (!bucket) {
      if (this.buckets.size >= this.maxKeys) this.makeRoom(now)
      bucket = { full: now, current: 0, ttl: 0 }
      this.buckets.set(key, bucket)
    }
    bucket.full = takeToken(bucket.full, now, tokenInterval(timeWindow, max), max, bucket)
    return bucket
  }

  private makeRoom(now: number): void {
    for (const [key, bucket] of this.buckets) if (bucket.full <= now) this.buckets.delete(key)
    const keep = Math.floor(this.maxKeys * 0.9)
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= keep) break
      this.buckets.delete(key)
    }
  }
}

/** Keys a process's (or the primary's) buckets remember, at most: about 100 bytes each. */
export const BUCKET_KEYS = 50_000

/**
 * The plugin's store over buckets in this process, on the app's clock (in ms). Every limit the plugin
 * makes (`child`, one per limit and per game) shares one set of buckets, its keys led by the limit's
 * `groupId` (`app-<ip>`, `app-b-<ip>`): the memory bound holds for all of them together, and a limit
 * made again (a game's rate changed) finds its buckets where they were.
 */
export class MemoryBucketStore implements FastifyRateLimitStore {
  private readonly buckets: MemoryBuckets

  constructor(
    private readonly clockMs: () => number,
    buckets?: MemoryBuckets,
    private readonly prefix = '',
  ) {
    this.buckets = buckets ?? new MemoryBuckets(BUCKET_KEYS, () => clockMs() * 1000)
  }

  incr(key: string, callback: (error: Error | null, result?: BucketAnswer) => void, timeWindow: number, max: number) {
    callback(null, this.buckets.take(this.prefix + key, timeWindow, max))
  }

  child(routeOptions: Parameters<FastifyRateLimitStore['child']>[0]): FastifyRateLimitStore {
    const { groupId } = routeOptions as { groupId?: string }
    return new MemoryBucketStore(this.clockMs, this.buckets, `${groupId ?? 'route'}-`)
  }
}

/** A token a worker asks the cluster primary to take from one bucket (rate-limit.ts, cluster-primary.ts). */
export interface CounterRequest {
  key: string
  timeWindow: number
  max: number
}

/**
 * The primary's answer to a worker's batch of requests, in order: each answer copied, as a bucket's
 * answer object changes with its next request (two requests of one batch can be for one key).
 */
export const answerBatch = (buckets: MemoryBuckets) => (requests: CounterRequest[]) =>
  requests.map(({ key, timeWindow, max }): BucketAnswer => {
    const { current, ttl } = buckets.take(key, timeWindow, max)
    return { current, ttl }
  })
