import t, { type Test } from 'tap'
import SQLite from 'better-sqlite3'
import { Kysely, SqliteDialect } from 'kysely'
import { buildApp } from '../../../app.js'
import {
  API_KEY,
  APP,
  TestClock,
  assertError,
  buildTestApp,
  eachDialect,
  freshDatabase,
  testConfig,
} from '../../helpers/app.js'
import { startSmtp } from '../../helpers/smtp.js'
import { emailApp } from '../../fixtures/email.js'
import { requestIdOf } from '../../../platform/core/logging.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

interface LogLine {
  level: number
  reqId?: string
  msg: string
  url?: string
  statusCode?: number
  [key: string]: unknown
}

/** The production app with its log lines captured (as pino writes them: one JSON object per line). */
async function loggedApp(t: Test, env: Record<string, string> = {}) {
  const lines: LogLine[] = []
  const app = await buildApp({
    config: testConfig({ ...(await freshDatabase(t, 'sqlite')), LOG_LEVEL: 'info', ...env }),
    clock: new TestClock(),
    logStream: { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) },
  })
  // A route that fails the way a bug does, to see the 500.
  app.get('/__test/boom', { schema: { hide: true } }, async (request) => {
    request.log.warn('about to fail')
    throw new Error('secret detail: SELECT * FROM users')
  })
  t.teardown(() => app.close())
  return { app, lines }
}

t.test('request ids: kept, generated, echoed on every answer, logged, in 500 bodies', async (t) => {
  const { app, lines } = await loggedApp(t, {
    RATE_LIMIT_ENABLED: 'true',
    RATE_LIMIT_PER_SECOND: '1',
    RATE_LIMIT_BURST_SECONDS: '1',
  })

  const kept = await app.inject({ url: '/health', headers: { 'x-request-id': 'lb-7f3a/trace 42' } })
  t.equal(kept.headers['x-request-id'], 'lb-7f3a/trace 42', 'a valid incoming id is kept')
  const generated = await app.inject({ url: '/health' })
  t.match(generated.headers['x-request-id'], UUID, 'none sent: a UUID')
  const other = await app.inject({ url: '/health' })
  t.not(other.headers['x-request-id'], generated.headers['x-request-id'], 'one per request')
  const tooLong = await app.inject({ url: '/health', headers: { 'x-request-id': 'a'.repeat(129) } })
  t.match(tooLong.headers['x-request-id'], UUID, '129 characters: replaced')
  t.equal(
    (await app.inject({ url: '/health', headers: { 'x-request-id': 'b'.repeat(128) } })).headers['x-request-id'],
    'b'.repeat(128),
    '128 characters: kept',
  )
  t.match(requestIdOf({ headers: { 'x-request-id': 'caf\u00e9' } } as never), UUID, 'not ASCII: replaced')
  t.match(requestIdOf({ headers: { 'x-request-id': 'a\tb' } } as never), UUID, 'a control character: replaced')
  t.match(requestIdOf({ headers: { 'x-request-id': '' } } as never), UUID, 'empty: replaced')
  t.match(requestIdOf({ headers: { 'x-request-id': ['a', 'b'] } } as never), UUID, 'sent twice: replaced')

  const browser = await app.inject({ url: '/health', headers: { origin: 'https://game.example' } })
  t.match(browser.headers['access-control-expose-headers'], /X-Request-Id/, 'a browser game can read it')
  const notFound = await app.inject({ url: '/nowhere', headers: { 'x-request-id': 'id-404' } })
  t.equal(notFound.statusCode, 404)
  t.equal(notFound.headers['x-request-id'], 'id-404', 'on a 404')
  const unauthorized = await app.inject({ url: `${APP}/news`, headers: { 'x-request-id': 'id-401' } })
  t.equal(unauthorized.headers['x-request-id'], 'id-401', 'on a 401')
  const badPath = await app.inject({ url: `${APP}/leaderboards/%E4/top`, headers: { 'x-request-id': 'id-400' } })
  t.equal(badPath.statusCode, 400)
  t.equal(badPath.headers['x-request-id'], 'id-400', 'on a path the router cannot decode')
  const headers = { 'x-api-key': API_KEY, 'x-request-id': 'id-429' }
  await app.inject({ url: `${APP}/news`, headers })
  const limited = await app.inject({ url: `${APP}/news`, headers })
  t.equal(limited.statusCode, 429)
  t.equal(limited.body, '', 'the 429 keeps its empty body')
  t.equal(limited.headers['x-request-id'], 'id-429', 'on the empty-body 429')

  const boom = await app.inject({ url: '/__test/boom', headers: { 'x-request-id': 'id-500' } })
  const body = assertError(t, boom, 500, 'INTERNAL_ERROR')
  t.equal(body.requestId, 'id-500', 'the 500 body names the request id')
  t.equal(boom.headers['x-request-id'], 'id-500')
  t.match(body.message, /id-500/, 'and the message tells the player what to report')
  const generated500 = await app.inject({ url: '/__test/boom' })
  t.match(generated500.json().requestId, UUID)
  t.equal(generated500.json().requestId, generated500.headers['x-request-id'])

  const of500 = lines.filter((line) => line.reqId === 'id-500')
  t.same(
    of500.map((line) => line.msg.replace(/\d+(\.\d+)? ms$/, 'N ms')),
    ['about to fail', 'unhandled error', 'GET /__test/boom 500 N ms'],
    'every line of the request carries its id: the handler’s, the error, the request line',
  )
  t.match(of500[2], { level: 30, method: 'GET', url: '/__test/boom', statusCode: 500, responseTimeMs: Number })
  t.ok(
    lines.filter((line) => line.reqId === 'id-429').length === 2,
    'one line per request (the 429 included), none without its id',
  )
  t.notOk(
    lines.some((line) => line.msg === 'incoming request' || line.msg === 'request completed'),
    "Fastify's two lines per request are off",
  )
})

t.test('logs: probes at debug, everything else at info', async (t) => {
  const info = await loggedApp(t, { METRICS_TOKEN: 'metrics-token-0123456789' })
  for (const url of [
    '/health',
    '/health/live',
    '/health/ready',
    '/actuator/health',
    '/api/v1/public/health',
    `${APP}/health`,
    '/metrics',
  ]) {
    await info.app.inject({ url })
  }
  await info.app.inject({ url: `${APP}/news`, headers: { 'x-api-key': API_KEY } })
  const requestLines = info.lines.filter((line) => line.url !== undefined)
  t.same(
    requestLines.map((line) => line.url),
    [`${APP}/news`],
    'at info, the probes write nothing; the app request writes its line',
  )

  const debug = await loggedApp(t, { LOG_LEVEL: 'debug' })
  await debug.app.inject({ url: '/health/ready', headers: { 'x-request-id': 'probe-1' } })
  const probe = debug.lines.find((line) => line.reqId === 'probe-1')
  t.match(probe, { level: 20, url: '/health/ready', statusCode: 200 }, 'at debug, a probe is logged at debug')
})

eachDialect(t, async (t, dialect) => {
  t.test('/health/live and /health/ready', async (t) => {
    const ctx = await buildTestApp(t, dialect)
    const live = await ctx.app.inject({ url: '/health/live' })
    t.equal(live.statusCode, 200)
    t.match(live.json(), { status: 'ok', uptimeSeconds: Number })
    const ready = await ctx.app.inject({ url: '/health/ready', headers: { 'x-api-key': 'wrong' } })
    t.equal(ready.statusCode, 200, 'no key needed, a wrong one ignored')
    t.same(ready.json(), { status: 'ready', failing: [], checks: { database: 'ok', migrations: 'ok' } })
  })

  t.test('ready waits for the migrations', async (t) => {
    const dbEnv = await freshDatabase(t, dialect)
    const ctx = await buildTestApp(t, dialect, { dbEnv, env: { MIGRATE_ON_START: 'false' } })
    const ready = await ctx.app.inject({ url: '/health/ready' })
    t.equal(ready.statusCode, 503)
    t.same(ready.json(), {
      status: 'unavailable',
      failing: ['migrations'],
      checks: { database: 'ok', migrations: 'pending' },
    })
    t.equal((await ctx.app.inject({ url: '/health/live' })).statusCode, 200, 'alive all the same')
    t.equal((await ctx.app.inject({ url: '/health' })).statusCode, 200, 'the SDK health is about the database only')
  })

  t.test('with SMTP, ready waits for the e-mail worker', async (t) => {
    const smtp = await startSmtp(t)
    const ctx = await emailApp(t, dialect, smtp.url)
    await ctx.app.ready()
    const ready = await ctx.app.inject({ url: '/health/ready' })
    t.equal(ready.statusCode, 200)
    t.same(ready.json().checks, { database: 'ok', migrations: 'ok', emailWorker: 'running' })
    await ctx.app.emailWorker.stop()
    const stopped = await ctx.app.inject({ url: '/health/ready' })
    t.equal(stopped.statusCode, 503)
    t.same(stopped.json().failing, ['emailWorker'])
    t.equal(stopped.json().checks.emailWorker, 'stopped')
  })
})

t.test('database down: ready and the SDK routes say so, live does not', async (t) => {
  const sqlite = new SQLite(':memory:')
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: sqlite }) })
  const app = await buildApp({ config: testConfig({ DB_PATH: ':memory:' }), clock: new TestClock(), db })
  t.teardown(() => app.close())
  await db.destroy()
  const ready = await app.inject({ url: '/health/ready' })
  t.equal(ready.statusCode, 503)
  t.same(ready.json(), {
    status: 'unavailable',
    failing: ['database'],
    checks: { database: 'unreachable', migrations: 'unknown' },
  })
  t.equal((await app.inject({ url: '/health/live' })).statusCode, 200)
  // The four SDK routes, byte for byte as the contract has them.
  t.equal((await app.inject({ url: '/actuator/health' })).body, '{"status":"DOWN"}')
  t.equal((await app.inject({ url: '/api/v1/public/health' })).body, 'DOWN')
})

t.test('the four SDK health routes are unchanged', async (t) => {
  const ctx = await buildTestApp(t, 'sqlite')
  const actuator = await ctx.app.inject({ url: '/actuator/health', headers: { 'x-api-key': 'anything' } })
  t.equal(actuator.body, '{"status":"UP"}')
  t.match(actuator.headers['content-type'], /^application\/json/)
  const plain = await ctx.app.inject({ url: '/api/v1/public/health' })
  t.equal(plain.body, 'OK')
  t.equal(plain.headers['content-type'], 'text/plain; charset=utf-8')
  for (const url of ['/health', `${APP}/health`]) {
    const res = await ctx.app.inject({ url })
    t.same(Object.keys(res.json()), ['status', 'timestamp', 'version', 'database', 'uptimeSeconds'], url)
    t.equal(res.json().status, 'ok')
  }
  assertError(t, await ctx.app.inject({ url: '/health/nope' }), 404, 'NOT_FOUND')
})
