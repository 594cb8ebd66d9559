import { randomInt } from 'node:crypto'
import t from 'tap'
import { Redis } from 'ioredis'
import { API_KEY, buildTestApp, freshDatabase } from '../../helpers/app.js'

type Ctx = Awaited<ReturnType<typeof buildTestApp>>

/**
 * Rate limits are about client addresses: these tests go through a real listening socket. The limit
 * here is a bucket of 5 that gains one token a second: five at once pass, and the machine's speed
 * cannot change the counts (the bucket's own tests, on the app clock: rate-limit-bucket.test.ts).
 */
async function listening(
  t: Parameters<typeof buildTestApp>[0],
  env: Record<string, string>,
  dbEnv?: Record<string, string>,
) {
  const ctx: Ctx = await buildTestApp(t, 'sqlite', {
    env: { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST_SECONDS: '5', ...env },
    dbEnv,
  })
  const address = await ctx.app.listen({ host: '127.0.0.1', port: 0 })
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${address}${path}`, { headers: { 'x-api-key': API_KEY, ...headers } })
  // The buckets in the process run on the app clock, which the test moves.
  return Object.assign(get, { clock: ctx.clock })
}

const randomIp = () => `203.0.${randomInt(0, 255)}.${randomInt(1, 255)}`

t.test('the 6th request at once is 429 with an empty body and the headers', async (t) => {
  const get = await listening(t, {})
  const statuses = []
  for (let i = 0; i < 5; i++) statuses.push((await get('/api/v1/app/nowhere')).status)
  t.same(statuses, [404, 404, 404, 404, 404])
  const limited = await get('/api/v1/app/nowhere')
  t.equal(limited.status, 429)
  t.equal(await limited.text(), '', 'empty body: the Godot SDK retries only a 429 without a code')
  t.equal(limited.headers.get('x-ratelimit-limit'), '5')
  t.equal(limited.headers.get('x-ratelimit-remaining'), '0')
  t.equal(limited.headers.get('x-ratelimit-reset'), '1', 'the next token within the second')
  t.match(limited.headers.get('retry-after'), /^\d+$/, 'Retry-After in whole seconds')
  t.equal(
    (await get('/api/v1/app/nowhere', { 'x-api-key': 'wrong' })).status,
    429,
    'the limit comes before the API key',
  )
  for (const path of ['/health', '/actuator/health', '/api/v1/public/health', '/api/v1/app/health', '/docs/json']) {
    t.equal((await get(path)).status, 200, `${path} is never limited`)
  }
  get.clock.advance(999)
  t.equal((await get('/api/v1/app/nowhere')).status, 429, 'no token back before a second has passed')
  get.clock.advance(1)
  t.equal((await get('/api/v1/app/nowhere')).status, 404, 'a token is back a second later')
  t.equal((await get('/api/v1/app/nowhere')).status, 429, 'one, not a new window of five')
})

t.test('a forged X-Forwarded-For does not escape the limit', async (t) => {
  const get = await listening(t, {})
  const statuses = []
  for (let i = 0; i < 6; i++)
    statuses.push((await get('/api/v1/app/nowhere', { 'x-forwarded-for': randomIp() })).status)
  t.same(statuses, [404, 404, 404, 404, 404, 429])
})

t.test('behind a trusted proxy each client has its own limit', async (t) => {
  const get = await listening(t, { TRUST_PROXY: '127.0.0.1' })
  const distinct = []
  for (let i = 0; i < 8; i++)
    distinct.push((await get('/api/v1/app/nowhere', { 'x-forwarded-for': randomIp() })).status)
  t.same(distinct, Array(8).fill(404), 'eight clients, one request each')
  const ip = randomIp()
  const same = []
  for (let i = 0; i < 6; i++) same.push((await get('/api/v1/app/nowhere', { 'x-forwarded-for': ip })).status)
  t.same(same, [404, 404, 404, 404, 404, 429], 'one client, six requests')
})

const REDIS_URL = process.env.TEST_REDIS_URL
t.test(
  'with Redis the limit holds across instances',
  { skip: !REDIS_URL && 'TEST_REDIS_URL is not set' },
  async (t) => {
    const dbEnv = await freshDatabase(t, 'sqlite')
    const env = { TRUST_PROXY: '127.0.0.1', REDIS_URL: REDIS_URL! }
    const first = await listening(t, env, dbEnv)
    const second = await listening(t, env, dbEnv)
    const ip = randomIp()
    const statuses = []
    for (let i = 0; i < 6; i++)
      statuses.push((await (i % 2 ? second : first)('/api/v1/app/nowhere', { 'x-forwarded-for': ip })).status)
    t.same(statuses, [404, 404, 404, 404, 404, 429])
  },
)

t.test(
  'Redis keys name their limit: outpost-rl-app-<ip> and outpost-rl-admin-…',
  { skip: !REDIS_URL && 'TEST_REDIS_URL is not set' },
  async (t) => {
    // A key lives until its bucket is full again: at 1 a second, a second after one request.
    const get = await listening(t, {
      TRUST_PROXY: '127.0.0.1',
      REDIS_URL: REDIS_URL!,
      ADMIN_RATE_LIMIT_PER_SECOND: '1',
    })
    const redis = new Redis(REDIS_URL!)
    t.teardown(() => redis.disconnect())
    // A random address per run: tests sharing the machine's Redis never read each other's keys.
    const ip = randomIp()
    await get('/api/v1/app/nowhere', { 'x-forwarded-for': ip })
    await get('/api/v1/admin/users', { 'x-forwarded-for': ip })
    const keys = (await redis.keys(`outpost-rl-*${ip}`)).sort()
    t.same(keys, [`outpost-rl-admin-admin-ip:${ip}`, `outpost-rl-app-${ip}`])
    // The bucket's state: when it is full again (µs on Redis's clock), gone once it is.
    const [seconds, micros] = await redis.time()
    const full = Number(await redis.get(`outpost-rl-app-${ip}`)) - (Number(seconds) * 1e6 + Number(micros))
    t.ok(full > 0 && full <= 1_000_000, `the player limit took a token: full again in ${full} µs`)
    const pttl = await redis.pttl(`outpost-rl-app-${ip}`)
    t.ok(pttl > 0 && pttl <= 1000, `and the key expires then (${pttl} ms)`)
  },
)

t.test('limit off: no 429', async (t) => {
  const ctx = await buildTestApp(t, 'sqlite')
  const codes = new Set<number>()
  for (let i = 0; i < 30; i++) codes.add((await ctx.call({ method: 'GET', url: '/nowhere' })).statusCode)
  t.same([...codes], [404])
})
