import { randomInt } from 'node:crypto'
import t from 'tap'
import { Redis } from 'ioredis'
import { API_KEY, buildTestApp, freshDatabase } from './helpers/app.js'

type Ctx = Awaited<ReturnType<typeof buildTestApp>>

/** Rate limits are about client addresses: these tests go through a real listening socket. */
async function listening(
  t: Parameters<typeof buildTestApp>[0],
  env: Record<string, string>,
  dbEnv?: Record<string, string>,
) {
  const ctx: Ctx = await buildTestApp(t, 'sqlite', {
    env: { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_PER_SECOND: '5', ...env },
    dbEnv,
  })
  const address = await ctx.app.listen({ host: '127.0.0.1', port: 0 })
  return (path: string, headers: Record<string, string> = {}) =>
    fetch(`${address}${path}`, { headers: { 'x-api-key': API_KEY, ...headers } })
}

const randomIp = () => `203.0.${randomInt(0, 255)}.${randomInt(1, 255)}`

t.test('the 6th request within a second is 429 with an empty body and the headers', async (t) => {
  const get = await listening(t, {})
  const statuses = []
  for (let i = 0; i < 5; i++) statuses.push((await get('/api/v1/app/nowhere')).status)
  t.same(statuses, [404, 404, 404, 404, 404])
  const limited = await get('/api/v1/app/nowhere')
  t.equal(limited.status, 429)
  t.equal(await limited.text(), '', 'empty body: the Godot SDK retries only a 429 without a code')
  t.equal(limited.headers.get('x-ratelimit-limit'), '5')
  t.equal(limited.headers.get('x-ratelimit-remaining'), '0')
  t.ok(limited.headers.get('x-ratelimit-reset'))
  t.match(limited.headers.get('retry-after'), /^\d+$/, 'Retry-After in whole seconds')
  t.equal(
    (await get('/api/v1/app/nowhere', { 'x-api-key': 'wrong' })).status,
    429,
    'the limit comes before the API key',
  )
  for (const path of ['/health', '/actuator/health', '/api/v1/public/health', '/api/v1/app/health', '/docs/json']) {
    t.equal((await get(path)).status, 200, `${path} is never limited`)
  }
  await new Promise((resolve) => setTimeout(resolve, 1100))
  t.equal((await get('/api/v1/app/nowhere')).status, 404, 'the next second is allowed again')
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
    const get = await listening(t, { TRUST_PROXY: '127.0.0.1', REDIS_URL: REDIS_URL! })
    const redis = new Redis(REDIS_URL!)
    t.teardown(() => redis.disconnect())
    // A random address per run: tests sharing the machine's Redis never read each other's keys.
    const ip = randomIp()
    await get('/api/v1/app/nowhere', { 'x-forwarded-for': ip })
    await get('/api/v1/admin/users', { 'x-forwarded-for': ip })
    const keys = (await redis.keys(`outpost-rl-*${ip}`)).sort()
    t.same(keys, [`outpost-rl-admin-admin-ip:${ip}`, `outpost-rl-app-${ip}`])
    t.equal(await redis.get(`outpost-rl-app-${ip}`), '1', 'the player limit counted the app request')
  },
)

t.test('limit off: no 429', async (t) => {
  const ctx = await buildTestApp(t, 'sqlite')
  const codes = new Set<number>()
  for (let i = 0; i < 30; i++) codes.add((await ctx.call({ method: 'GET', url: '/nowhere' })).statusCode)
  t.same([...codes], [404])
})
