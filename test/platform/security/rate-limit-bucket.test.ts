import { randomInt } from 'node:crypto'
import t, { type Test } from 'tap'
import { Redis } from 'ioredis'
import { buildApp } from '../../../app.js'
import { Channel } from '../../../platform/cluster/cluster.js'
import {
  answerBatch,
  BUCKET_SCRIPT,
  MemoryBuckets,
  takeToken,
  tokenInterval,
  type BucketAnswer,
} from '../../../platform/security/token-bucket.js'
import { bucketOf } from '../../../platform/security/rate-limit.js'
import { API_KEY, freshDatabase, testConfig, testProcessMetrics, TestClock } from '../../helpers/app.js'

// The rate limits' token bucket: a burst of RATE_LIMIT_BURST_SECONDS' worth passes at once, then the
// sustained rate holds; the same answers in this process, through the cluster primary and in Redis.
// The app's clock drives the buckets in the process (and the primary's here), so every count is exact.

/** The defaults: 10 per second sustained, 3 seconds' worth (30) at once. */
const RATE = 10
const BURST = 3 * RATE

/** The timeline every store is run through: [ms from the start, requests at that instant]. */
const TIMELINE: Array<[number, number]> = [
  [0, BURST + 1], // the burst, and one past it
  [100, 2], // one token back after 100 ms
  // Then 10 seconds at twice the rate: a request every 50 ms, one token every 100 ms.
  ...Array.from({ length: 200 }, (_, i): [number, number] => [150 + 50 * i, 1]),
]

/** What the timeline must give: the whole burst, then exactly the sustained rate. */
function checkTimeline(t: Test, passed: boolean[], what: string) {
  t.same(passed.slice(0, BURST + 1), [...Array(BURST).fill(true), false], `${what}: ${BURST} at once, not one more`)
  t.same(passed.slice(BURST + 1, BURST + 3), [true, false], `${what}: one token back after 100 ms`)
  const sustained = passed.slice(BURST + 3)
  t.equal(sustained.filter(Boolean).length, 100, `${what}: 20 a second for 10 s: exactly half pass`)
  t.same(sustained.slice(0, 4), [false, true, false, true], `${what}: every other one`)
}

t.test('the bucket itself: a burst, then the sustained rate, in whole tokens', async (t) => {
  let now = 1_000_000_000
  const buckets = new MemoryBuckets(10, () => now)
  const { max, timeWindow } = bucketOf(RATE, 3)
  t.same({ max, timeWindow }, { max: 30, timeWindow: 3000 }, 'a bucket of 30 that fills in 3 s')
  t.equal(tokenInterval(timeWindow, max), 100_000, 'one token every 100 ms (in µs)')
  const start = now
  const answers: BucketAnswer[] = []
  for (const [at, count] of TIMELINE) {
    now = start + at * 1000
    for (let i = 0; i < count; i++) {
      const { current, ttl } = buckets.take('203.0.113.7', timeWindow, max)
      answers.push({ current, ttl })
    }
  }
  checkTimeline(
    t,
    answers.map((a) => a.current <= max),
    'in memory',
  )
  t.same(answers[0], { current: 1, ttl: 100 }, 'the first takes one of 30: full again in 100 ms')
  t.same(answers[BURST - 1], { current: 30, ttl: 3000 }, 'the 30th empties it: full again in 3 s')
  t.same(answers[BURST], { current: 31, ttl: 100 }, 'the 31st is refused: the next token in 100 ms')
  // Keys whose bucket is full again are forgotten first when room is needed.
  for (let i = 0; i < 9; i++) buckets.take(`other-${i}`, timeWindow, max)
  now += 3_100_000
  buckets.take('newcomer', timeWindow, max)
  t.ok(buckets.size <= 10, `at most maxKeys keys (${buckets.size})`)
})

t.test('takeToken answers like the plugin expects: current over max means refused', async (t) => {
  const answer = { current: 0, ttl: 0 }
  // A rate of 3 a second: the interval is rounded to the microsecond, the same in every store.
  const interval = tokenInterval(1000, 3)
  t.equal(interval, 333_333)
  let full = takeToken(0, 5_000_000, interval, 3, answer)
  t.same(answer, { current: 1, ttl: 334 })
  full = takeToken(full, 5_000_000, interval, 3, answer)
  full = takeToken(full, 5_000_000, interval, 3, answer)
  t.same(answer, { current: 3, ttl: 1000 })
  t.equal(takeToken(full, 5_000_000, interval, 3, answer), full, 'a refusal leaves the bucket as it was')
  t.same(answer, { current: 4, ttl: 334 })
})

/** An app with the rate limit on, on a test clock; `cluster` makes it a worker of that primary. */
async function limitedApp(t: Test, clock: TestClock, cluster?: Channel) {
  const app = await buildApp({
    config: testConfig({ ...(await freshDatabase(t, 'sqlite')), RATE_LIMIT_ENABLED: 'true' }),
    clock,
    cluster,
    processMetrics: testProcessMetrics(),
  })
  t.teardown(() => app.close())
  return app
}

/** The timeline over HTTP from one address: the answers' statuses, and the first 429 in full. */
async function runOverHttp(app: Awaited<ReturnType<typeof limitedApp>>, clock: TestClock) {
  const start = clock.now()
  const remoteAddress = `203.0.${randomInt(0, 255)}.${randomInt(1, 255)}`
  const passed: boolean[] = []
  const remaining: string[] = []
  let refused: Awaited<ReturnType<typeof app.inject>> | undefined
  for (const [at, count] of TIMELINE) {
    clock.ms = start + at
    for (let i = 0; i < count; i++) {
      const answer = await app.inject({
        method: 'GET',
        url: '/api/v1/app/nowhere',
        headers: { 'x-api-key': API_KEY },
        remoteAddress,
      })
      passed.push(answer.statusCode !== 429)
      remaining.push(String(answer.headers['x-ratelimit-remaining']))
      refused ??= answer.statusCode === 429 ? answer : undefined
    }
  }
  return { passed, remaining, refused: refused! }
}

function checkHttp(t: Test, run: Awaited<ReturnType<typeof runOverHttp>>, what: string) {
  checkTimeline(t, run.passed, what)
  t.same(
    run.remaining.slice(0, BURST),
    Array.from({ length: BURST }, (_, i) => String(BURST - 1 - i)),
    'x-ratelimit-remaining: the whole requests left',
  )
  t.equal(run.refused.body, '', 'an empty 429: the Godot SDK retries only that')
  t.match(run.refused.headers, {
    'retry-after': '1',
    'x-ratelimit-limit': String(BURST),
    'x-ratelimit-remaining': '0',
    'x-ratelimit-reset': '1',
  })
}

t.test('in the process: the burst and the sustained rate, on the app clock', async (t) => {
  const clock = new TestClock()
  const app = await limitedApp(t, clock)
  checkHttp(t, await runOverHttp(app, clock), 'in the process')
})

t.test('through the cluster primary (WORKERS > 1): the same answers', async (t) => {
  const clock = new TestClock()
  // The primary's side of the channel, answering as cluster-primary.ts does (on the test's clock).
  // eslint-disable-next-line prefer-const
  let worker: Channel
  const primary = new Channel((message, done) => {
    setImmediate(() => worker.receive(message))
    done(null)
  })
  worker = new Channel((message, done) => {
    setImmediate(() => primary.receive(message))
    done(null)
  })
  let batches = 0
  const takeTokens = answerBatch(new MemoryBuckets(1000, () => clock.now() * 1000))
  primary.handle('rate-limit', (requests: Parameters<typeof takeTokens>[0]) => {
    batches++
    return takeTokens(requests)
  })
  const app = await limitedApp(t, clock, worker)
  checkHttp(t, await runOverHttp(app, clock), 'through the primary')
  t.ok(batches >= BURST, `the primary kept the counts (${batches} batches)`)
})

const REDIS_URL = process.env.TEST_REDIS_URL
t.test(
  'in Redis: the script answers exactly as the bucket in memory, and its keys expire once full',
  { skip: !REDIS_URL && 'TEST_REDIS_URL is not set' },
  async (t) => {
    const redis = new Redis(REDIS_URL!)
    t.teardown(() => redis.disconnect())
    const key = `outpost-rl-test-${randomInt(1, 2 ** 40)}`
    const { max, timeWindow } = bucketOf(RATE, 3)
    const interval = tokenInterval(timeWindow, max)
    // The script on Redis's clock (as in production) gives the time of the first answer's start.
    const [seconds, micros] = await redis.time()
    const start = Number(seconds) * 1_000_000 + Number(micros) + 10_000_000
    const fromRedis: BucketAnswer[] = []
    const inMemory: BucketAnswer[] = []
    let full = 0
    for (const [at, count] of TIMELINE) {
      const now = start + at * 1000
      for (let i = 0; i < count; i++) {
        const [current, ttl] = (await redis.eval(BUCKET_SCRIPT, 1, key, interval, max, now)) as number[]
        fromRedis.push({ current, ttl })
        const answer = { current: 0, ttl: 0 }
        full = takeToken(full, now, interval, max, answer)
        inMemory.push(answer)
      }
    }
    t.same(fromRedis, inMemory, `the same ${inMemory.length} answers`)
    checkTimeline(
      t,
      fromRedis.map((a) => a.current <= max),
      'in Redis',
    )
    const pttl = await redis.pttl(key)
    t.ok(pttl > 0 && pttl <= 13_200, `the key expires when its bucket is full again (${pttl} ms)`)
    // On Redis's own clock (no time given): a fresh key, a full bucket.
    const fresh = `${key}-fresh`
    t.same(await redis.eval(BUCKET_SCRIPT, 1, fresh, interval, max), [1, 100])
    t.ok((await redis.pttl(fresh)) <= 100, 'full again within 100 ms: the key goes then')
  },
)
