import t from 'tap'
import { FEATURES } from '../../../app.js'
import { sql } from 'kysely'
import { assertError, buildTestApp, eachDialect, freshDatabase, testConfig, type TestApp } from '../../helpers/app.js'
import { parsePrometheus, valueOf, type Family } from '../../helpers/prometheus.js'
import { startSmtp } from '../../helpers/smtp.js'
import { createEmailUser, emailApp } from '../../fixtures/email.js'
import { bearer, createUser } from '../../fixtures/users.js'
import {
  aggregateWorkers,
  isLoopback,
  Metrics,
  UNMATCHED_ROUTE,
} from '../../../platform/observability/metrics/index.js'
import { Counter, Histogram, Registry } from 'prom-client'
import { createDb, poolUsage, type DbFailure } from '../../../db/index.js'
import { migrateToLatest } from '../../../db/migrate.js'
import { MIGRATIONS } from '../../../app.js'
import { watchStatements } from '../../../db/statements.js'

const TOKEN = 'metrics-token-0123456789'
/** A statement that holds its connection for 0.2 s, on each server engine. */
const sleepQuery = { mysql: sql`select sleep(0.2)`, postgres: sql`select pg_sleep(0.2)` }

async function scrape(ctx: TestApp, headers: Record<string, string> = {}): Promise<Map<string, Family>> {
  const res = await ctx.app.inject({ method: 'GET', url: '/metrics', headers })
  if (res.statusCode !== 200) throw new Error(`/metrics answered ${res.statusCode}: ${res.body}`)
  return parsePrometheus(res.body)
}

/** The families docs/observability.md names, and their types. */
const NAMED_FAMILIES: Record<string, Family['type']> = {
  http_requests_total: 'counter',
  http_request_duration_seconds: 'histogram',
  process_resident_memory_bytes: 'gauge',
  process_cpu_seconds_total: 'counter',
  nodejs_eventloop_lag_seconds: 'gauge',
  nodejs_eventloop_lag_p99_seconds: 'gauge',
  nodejs_heap_size_used_bytes: 'gauge',
  outpost_db_query_errors_total: 'counter',
  outpost_db_pool_connections: 'gauge',
  outpost_db_statements_total: 'counter',
  outpost_email_queue: 'gauge',
  outpost_emails_sent_total: 'counter',
  outpost_email_delivery_failures_total: 'counter',
  outpost_rate_limit_rejections_total: 'counter',
  outpost_cache_lookups_total: 'counter',
  outpost_signups_total: 'counter',
  outpost_signins_total: 'counter',
  outpost_score_submits_total: 'counter',
  outpost_validated_runs_total: 'counter',
  outpost_crash_reports_total: 'counter',
  outpost_webhook_deliveries_total: 'counter',
  outpost_webhook_deliveries_by_event_total: 'counter',
  outpost_webhook_deliveries_by_endpoint_total: 'counter',
  outpost_webhook_outbox: 'gauge',
}

t.test('/metrics parses as Prometheus text with the named families', async (t) => {
  const ctx = await buildTestApp(t, 'sqlite')
  await ctx.call({ method: 'GET', url: '/leaderboards/default/top' })
  const res = await ctx.app.inject({ method: 'GET', url: '/metrics' })
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^text\/plain; version=0\.0\.4/)
  const families = parsePrometheus(res.body)
  for (const [name, type] of Object.entries(NAMED_FAMILIES)) {
    t.equal(families.get(name)?.type, type, `${name} is a ${type}`)
    t.ok(families.get(name)?.help, `${name} has help text`)
  }
  // SQLite has no pool: the family is declared, with no samples.
  t.same(families.get('outpost_db_pool_connections')?.samples, [], 'no pool on SQLite')
  t.equal(valueOf(families, 'outpost_email_queue', { status: 'pending' }), 0, 'the queue, read at the scrape')
  t.throws(() => parsePrometheus('foo 1\n'), /undeclared/, 'the parser refuses what Prometheus would')
  t.throws(() => parsePrometheus('# TYPE foo counter\nfoo{a="1} 1\n'), /bad labels|not a sample/)
})

t.test('a request is counted under its route pattern, never its raw URL', async (t) => {
  const ctx = await buildTestApp(t, 'sqlite')
  await ctx.admin({ method: 'PUT', url: '/leaderboards/weekly-42', payload: { name: 'Weekly' } })
  for (let i = 0; i < 3; i++) await ctx.call({ method: 'GET', url: `/leaderboards/weekly-42/top?limit=${i + 1}` })
  await ctx.call({ method: 'GET', url: '/leaderboards/no-such-board/top' })
  await ctx.call({ method: 'GET', url: '/no/such/path/7f3a' })
  await ctx.app.inject({ method: 'GET', url: '/%E4' })
  const families = await scrape(ctx)
  const route = '/api/v1/app/leaderboards/:boardKey/top'
  t.equal(valueOf(families, 'http_requests_total', { route, method: 'GET', status: '200' }), 3)
  t.equal(valueOf(families, 'http_requests_total', { route, method: 'GET', status: '404' }), 1, 'by status')
  t.equal(valueOf(families, 'http_request_duration_seconds_count', { route, method: 'GET', status: '200' }), 3)
  t.ok(
    (valueOf(families, 'http_request_duration_seconds_sum', { route, method: 'GET', status: '200' }) ?? 0) > 0,
    'latency summed',
  )
  t.equal(
    valueOf(families, 'http_requests_total', { route: UNMATCHED_ROUTE, method: 'GET', status: '404' }),
    1,
    'an unknown path: one fixed label',
  )
  const routes = new Set(families.get('http_requests_total')!.samples.map((s) => s.labels.route))
  for (const raw of ['weekly-42', 'no-such-board', '7f3a', 'limit=', '%E4']) {
    t.notOk(
      [...routes].some((r) => r.includes(raw)),
      `no label holds the raw URL part ${raw}`,
    )
  }
})

t.test('the guard: loopback only without METRICS_TOKEN, the token from everyone with it', async (t) => {
  const open = await buildTestApp(t, 'sqlite', { env: { TRUST_PROXY: 'true' } })
  const get = (ctx: TestApp, remoteAddress: string, headers: Record<string, string> = {}) =>
    ctx.app.inject({ method: 'GET', url: '/metrics', remoteAddress, headers })
  t.equal((await get(open, '127.0.0.1')).statusCode, 200, 'IPv4 loopback')
  t.equal((await get(open, '127.9.8.7')).statusCode, 200, 'all of 127/8')
  t.equal((await get(open, '::1')).statusCode, 200, 'IPv6 loopback')
  t.equal((await get(open, '::ffff:127.0.0.1')).statusCode, 200, 'IPv4-mapped loopback')
  assertError(t, await get(open, '203.0.113.9'), 403, 'FORBIDDEN')
  assertError(t, await get(open, '10.1.2.3'), 403, 'FORBIDDEN')
  // Even when the proxy header is trusted for the rate limit: the socket decides, not X-Forwarded-For.
  assertError(t, await get(open, '203.0.113.9', { 'x-forwarded-for': '127.0.0.1' }), 403, 'FORBIDDEN')
  assertError(t, await get(open, '203.0.113.9', { authorization: `Bearer ${TOKEN}` }), 403, 'FORBIDDEN')
  t.notOk(isLoopback(undefined))
  t.notOk(isLoopback('::ffff:10.0.0.1'))
  t.notOk(isLoopback('1270.0.0.1'))

  const guarded = await buildTestApp(t, 'sqlite', { env: { METRICS_TOKEN: TOKEN } })
  const refused = await get(guarded, '127.0.0.1')
  assertError(t, refused, 401, 'UNAUTHORIZED')
  t.equal(refused.headers['www-authenticate'], 'Bearer')
  assertError(t, await get(guarded, '127.0.0.1', { authorization: `Bearer ${TOKEN}x` }), 401, 'UNAUTHORIZED')
  assertError(t, await get(guarded, '127.0.0.1', { authorization: TOKEN }), 401, 'UNAUTHORIZED')
  assertError(t, await get(guarded, '203.0.113.9', { 'x-api-key': TOKEN }), 401, 'UNAUTHORIZED')
  const allowed = await get(guarded, '203.0.113.9', { authorization: `Bearer ${TOKEN}` })
  t.equal(allowed.statusCode, 200, 'the token works from anywhere')
  t.ok(parsePrometheus(allowed.body).has('http_requests_total'))
  t.equal((await get(guarded, '203.0.113.9', { authorization: `bearer ${TOKEN}` })).statusCode, 200, 'any case')
  t.throws(() => testConfig({ METRICS_TOKEN: 'short' }), /METRICS_TOKEN/, 'a short token is refused')
})

t.test('no API key and no rate limit on /metrics', async (t) => {
  const ctx = await buildTestApp(t, 'sqlite', {
    env: { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST_SECONDS: '1' },
  })
  for (let i = 0; i < 3; i++) {
    const res = await ctx.app.inject({ method: 'GET', url: '/metrics' })
    t.equal(res.statusCode, 200, `scrape ${i + 1}`)
  }
  for (let i = 0; i < 3; i++) await ctx.call({ method: 'GET', url: '/news' })
  const families = await scrape(ctx)
  t.equal(valueOf(families, 'outpost_rate_limit_rejections_total', { limit: 'player' }), 2, 'two 429s counted')
  t.equal(valueOf(families, 'http_requests_total', { route: '/api/v1/app/news', status: '429' }), 2)
})

eachDialect(t, async (t, dialect) => {
  t.test('business counters and caches', async (t) => {
    const ctx = await buildTestApp(t, dialect)
    const user = await createUser(ctx)
    await ctx.call({ method: 'POST', url: '/user-management/signin', payload: { anonymousToken: user.anonymousToken } })
    await ctx.call({ method: 'POST', url: '/leaderboard/submit', payload: { userId: user.userId, score: 10 } })
    await ctx.call({ method: 'POST', url: '/leaderboard/submit', payload: { userId: user.userId, score: 'x' } })
    await ctx.call({ method: 'GET', url: '/leaderboard/top' })
    await ctx.call({ method: 'GET', url: '/leaderboard/top' })
    await ctx.call({ method: 'GET', url: '/remote-config/all' })
    await ctx.call({ method: 'GET', url: '/remote-config/all' })
    await ctx.call({ method: 'POST', url: '/crash-reports/create', payload: { type: 'ANR', message: 'stuck' } })
    const rejected = await ctx.call({
      method: 'POST',
      url: '/validated-actions/submit',
      headers: bearer(user),
      payload: { userId: user.userId, ticket: 'not-a-ticket', inputLogHash: 'a'.repeat(64), score: 5 },
    })
    assertError(t, rejected, 422, 'TICKET_INVALID')
    const families = await scrape(ctx)
    t.equal(valueOf(families, 'outpost_signups_total', { kind: 'anonymous' }), 1)
    t.equal(valueOf(families, 'outpost_signups_total', { kind: 'email' }), 0)
    t.equal(valueOf(families, 'outpost_signins_total', { kind: 'anonymous' }), 1)
    t.equal(valueOf(families, 'outpost_score_submits_total'), 1, 'the 400 is not a submit')
    t.equal(valueOf(families, 'outpost_crash_reports_total', { type: 'ANR' }), 1)
    t.equal(valueOf(families, 'outpost_validated_runs_total', { outcome: 'rejected' }), 1)
    t.equal(valueOf(families, 'outpost_validated_runs_total', { outcome: 'accepted' }), 0)
    // The submit dropped the page; the first read after it misses, the second hits.
    t.equal(valueOf(families, 'outpost_cache_lookups_total', { cache: 'leaderboard_top', result: 'miss' }), 1)
    t.equal(valueOf(families, 'outpost_cache_lookups_total', { cache: 'leaderboard_top', result: 'hit' }), 1)
    t.equal(valueOf(families, 'outpost_cache_lookups_total', { cache: 'remote-config', result: 'miss' }), 1)
    t.equal(valueOf(families, 'outpost_cache_lookups_total', { cache: 'remote-config', result: 'hit' }), 1)
    t.equal(
      valueOf(families, 'http_requests_total', {
        route: '/api/v1/app/validated-actions/submit',
        method: 'POST',
        status: '422',
      }),
      1,
    )
  })

  t.test('the e-mail queue by status, deliveries and failures', async (t) => {
    const smtp = await startSmtp(t)
    const ctx = await emailApp(t, dialect, smtp.url)
    await createEmailUser(ctx)
    await createEmailUser(ctx)
    let families = await scrape(ctx)
    t.equal(valueOf(families, 'outpost_signups_total', { kind: 'email' }), 2)
    t.equal(valueOf(families, 'outpost_email_queue', { status: 'pending' }), 2, 'two verification mails queued')
    t.equal(valueOf(families, 'outpost_email_queue', { status: 'sent' }), 0)
    smtp.refuseNext(1, 451, 'try later')
    await ctx.app.emailWorker.runOnce()
    families = await scrape(ctx)
    t.equal(valueOf(families, 'outpost_emails_sent_total'), 1)
    t.equal(valueOf(families, 'outpost_email_delivery_failures_total', { result: 'retry' }), 1)
    t.equal(valueOf(families, 'outpost_email_queue', { status: 'sent' }), 1)
    t.equal(valueOf(families, 'outpost_email_queue', { status: 'pending' }), 1, 'the refused one waits for its retry')
  })

  t.test('every statement sent is counted once, BEGIN and COMMIT included; a reset starts from zero', async (t) => {
    const db = createDb(testConfig(await freshDatabase(t, dialect)))
    t.teardown(() => db.destroy())
    await migrateToLatest(db, MIGRATIONS)
    const metrics = new Metrics()
    metrics.watchDb(db)
    const read = async () => valueOf(parsePrometheus(await metrics.text()), 'outpost_db_statements_total')!
    const before = await read()
    t.ok(before > 0, 'the migrations counted')
    const texts: string[] = []
    const stop = watchStatements(db, (text) => texts.push(text))
    await sql`select 1`.execute(db)
    await db.transaction().execute(async (trx) => {
      await sql`select 1`.execute(trx)
    })
    stop()
    t.ok(texts.length >= 4, `a select, then begin, select, commit: ${texts.join('; ')}`)
    t.equal((await read()) - before, texts.length, 'one count per statement the driver sent')
    metrics.registry.resetMetrics()
    t.equal(await read(), 0)
    await sql`select 1`.execute(db)
    t.equal(await read(), 1)
  })

  t.test("database failures are counted by kind; a server pool's use is reported", async (t) => {
    const env = await freshDatabase(t, dialect)
    const config = testConfig(env)
    const seen: DbFailure[] = []
    const db = createDb(config, { queryFailed: (kind) => seen.push(kind) })
    t.teardown(() => db.destroy())
    await migrateToLatest(db, MIGRATIONS)
    await t.rejects(sql`select * from no_such_table`.execute(db))
    await sql`insert into content_versions (feature, version) values ('metrics-test', 1)`.execute(db)
    await t.rejects(sql`insert into content_versions (feature, version) values ('metrics-test', 1)`.execute(db))
    t.same(seen, ['error', 'conflict'], 'an error, then a unique-key conflict')
    if (dialect !== 'sqlite') {
      const usage = poolUsage(db)!
      t.same(usage, { inUse: 0, waiting: 0, size: Number(env.DB_POOL_SIZE) })
      await db.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx)
        t.equal(poolUsage(db)!.inUse, 1, 'a transaction holds a connection')
      })
      t.equal(poolUsage(db)!.inUse, 0, 'given back')
      // Calls answered from free places (on a later tick, or once a new connection is open) wait in no
      // line: an idle server reads 0 however often it is sampled while such calls are under way.
      const fresh = createDb({ ...config, DB_POOL_SIZE: 4 })
      t.teardown(() => fresh.destroy())
      const samples: number[] = []
      const sampler = setInterval(() => samples.push(poolUsage(fresh)!.waiting), 1)
      const calls = [1, 2, 3].map(() => sleepQuery[dialect].execute(fresh))
      samples.push(poolUsage(fresh)!.waiting)
      await Promise.all(calls)
      clearInterval(sampler)
      t.ok(samples.length > 3, 'sampled while the connections were opened and used')
      t.same([...new Set(samples)], [0], 'three calls on a pool of four: nobody waits')
      // One connection, held: the next caller waits past DB_QUERY_TIMEOUT_MS and is told so.
      const small = createDb(
        { ...config, DB_POOL_SIZE: 1, DB_QUERY_TIMEOUT_MS: 200 },
        {
          queryFailed: (kind) => seen.push(kind),
        },
      )
      t.teardown(() => small.destroy())
      let release!: () => void
      const held = small.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx)
        await new Promise<void>((resolve) => (release = resolve))
      })
      await new Promise((resolve) => setTimeout(resolve, 50))
      const waiting = sql`select 1`.execute(small)
      await new Promise((resolve) => setTimeout(resolve, 50))
      t.equal(poolUsage(small)!.waiting, 1, 'a caller waits')
      await t.rejects(waiting, { code: 'POOL_WAIT_TIMEOUT' })
      release()
      await held
      t.same(seen.slice(2), ['pool_timeout'])
      t.same(poolUsage(small), { inUse: 0, waiting: 0, size: 1 })

      const ctx = await buildTestApp(t, dialect)
      const families = await scrape(ctx)
      t.equal(valueOf(families, 'outpost_db_pool_connections', { state: 'max' }), 8)
      t.equal(valueOf(families, 'outpost_db_pool_connections', { state: 'in_use' }), 0)
      t.equal(valueOf(families, 'outpost_db_pool_connections', { state: 'waiting' }), 0, 'idle: nobody waits')
      // A health probe under way while Prometheus scrapes (a container's health check) is not a wait.
      const probe = ctx.app.pingDb()
      const during = await scrape(ctx)
      await probe
      t.equal(valueOf(during, 'outpost_db_pool_connections', { state: 'waiting' }), 0, 'a call being answered')
    } else {
      t.equal(poolUsage(db), null, 'SQLite has no pool')
    }
  })
})

t.test('each app has its own registry; a cluster primary sums the workers', async (t) => {
  const one = await buildTestApp(t, 'sqlite')
  const two = await buildTestApp(t, 'sqlite')
  await one.app.inject({ method: 'GET', url: '/health' })
  for (let i = 0; i < 2; i++) await two.app.inject({ method: 'GET', url: '/health' })
  const health = { route: '/health', method: 'GET', status: '200' }
  t.equal(valueOf(await scrape(one), 'http_requests_total', health), 1, 'app one counts its own')
  t.equal(valueOf(await scrape(two), 'http_requests_total', health), 2, 'app two counts its own')
  const summed = await aggregateWorkers([await one.app.metrics.metricsJson(), await two.app.metrics.metricsJson()])
  const families = parsePrometheus(summed.text)
  t.equal(valueOf(families, 'http_requests_total', health), 3, 'summed over both')
  t.equal(valueOf(families, 'http_request_duration_seconds_count', health), 3)
  t.ok(families.has('process_resident_memory_bytes'))
})

t.test(
  'request counts: the same exposition as prom-client Counter and Histogram over the same observations',
  async (t) => {
    const ours = new Metrics()
    const reference = new Registry()
    const labelNames = ['route', 'method', 'status', 'game'] as const
    const counter = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by route pattern, method, status and game (empty: none was named)',
      labelNames,
      registers: [reference],
    })
    const histogram = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from the request to its answer, by route pattern, method, status and game',
      labelNames,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [reference],
    })
    // On a bound, between bounds, below the first and above the last.
    const seen: Array<[string, string, number, number]> = [
      ['/a', 'GET', 200, 0.001],
      ['/a', 'GET', 200, 0.0007],
      ['/a', 'GET', 200, 0.03],
      ['/a', 'GET', 404, 12],
      ['/b/:id', 'POST', 200, 0.25],
      ['/b/:id', 'POST', 200, 0.2500001],
    ]
    for (const [route, method, status, seconds] of seen) {
      const labels = { route, method, status: String(status), game: route === '/a' ? 'default' : 'b' }
      ours.requestAnswered(route, method, status, seconds, labels.game)
      counter.inc(labels)
      histogram.observe(labels, seconds)
    }
    const lines = (text: string) =>
      text
        .split('\n')
        .filter((line) => line.startsWith('http_request'))
        .sort()
    const expected = lines(await reference.metrics())
    t.ok(expected.length > 40, 'the reference has every bucket line')
    t.same(lines(await ours.registry.metrics()), expected)
    const summed = await aggregateWorkers([await ours.metricsJson(), await ours.metricsJson()])
    const families = parsePrometheus(summed.text)
    t.equal(
      valueOf(families, 'http_request_duration_seconds_bucket', {
        route: '/a',
        method: 'GET',
        status: '200',
        le: '0.001',
      }),
      4,
    )
    t.equal(valueOf(families, 'http_requests_total', { route: '/b/:id', method: 'POST', status: '200' }), 4)
  },
)

t.test('a cache or counter no manifest declares is refused at registration', async (t) => {
  const metrics = new Metrics(FEATURES.map((feature) => feature.manifest))
  t.throws(() => metrics.cacheLookup('undeclared'), /No feature declares the cache 'undeclared'/)
  t.throws(() => metrics.counter('outpost_undeclared_total'), /No feature declares the counter/)
})

t.test('a registry reset zeroes the plain-number families, and counting goes on', async (t) => {
  const metrics = new Metrics(FEATURES.map((feature) => feature.manifest))
  const lookup = metrics.cacheLookup('news')
  lookup(true)
  lookup(false)
  metrics.requestAnswered('/a', 'GET', 200, 0.002, 'default')
  const value = async (name: string, labels: Record<string, string>) =>
    valueOf(parsePrometheus(await metrics.registry.metrics()), name, labels)
  t.equal(await value('outpost_cache_lookups_total', { cache: 'news', result: 'hit' }), 1)
  metrics.registry.resetMetrics()
  t.equal(await value('outpost_cache_lookups_total', { cache: 'news', result: 'hit' }), 0, 'zeroed, still listed')
  t.equal(await value('http_requests_total', { route: '/a', method: 'GET', status: '200' }), undefined)
  lookup(true)
  metrics.requestAnswered('/a', 'GET', 200, 0.002, 'default')
  t.equal(await value('outpost_cache_lookups_total', { cache: 'news', result: 'hit' }), 1, 'the kept series counts on')
  t.equal(await value('http_requests_total', { route: '/a', method: 'GET', status: '200' }), 1)
})
