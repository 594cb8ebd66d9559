import { spawn } from 'node:child_process'
import { get } from 'node:http'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { ADMIN, ADMIN_KEY, API_KEY, APP, eachDialect, freshDatabase, testConfig } from '../helpers/app.js'
import { startSmtp } from '../helpers/smtp.js'
import { MIGRATIONS } from '../../app.js'
import { buildApp } from '../../app.js'
import { Channel } from '../../platform/cluster/cluster.js'
import { PRIMARY_COUNTER_TIMEOUT_MS } from '../../platform/security/rate-limit.js'
import { INSTANCE_METRICS_TIMEOUT_MS } from '../../platform/observability/metrics/index.js'

/**
 * WORKERS=2: the compiled server as `npm start` runs it, a cluster primary and two workers sharing
 * one port and one database. What holds across instances must hold across the workers: one winner
 * of a race, one delivery per e-mail, limits counted once for the instance, metrics summed, the
 * migrations run once; and a worker that dies is replaced.
 */

const SERVER = fileURLToPath(new URL('../../server.js', import.meta.url))
/**
 * The players' limit in this file: small, so that counting it twice would show. A bucket of LIMIT
 * (one second's worth) that gains a token every 1000 / LIMIT ms.
 */
const LIMIT = 5

/**
 * What one bucket may let through over `ms`, short of what a bucket per worker would: two buckets
 * give 2 × LIMIT at once plus the tokens back meanwhile. One bucket gives LIMIT plus those tokens,
 * and a few more on a loaded machine: a count the primary does not answer within 50 ms lets its
 * request pass (the limit fails open, as with a stalled Redis). So: fewer than two buckets' worth.
 */
const passable = (ms: number) => 2 * LIMIT - 1 + Math.floor(ms / (1000 / LIMIT))

interface LogLine {
  pid: number
  msg: string
  worker?: number
  url?: string
  applied?: string[]
  [field: string]: unknown
}

/** A cluster started with PORT=0: the primary names the port the workers share in its start-up line. */
async function startCluster(t: Test, env: Record<string, string>) {
  const child = spawn(process.execPath, [SERVER], {
    env: {
      PATH: process.env.PATH ?? '',
      API_KEY,
      ADMIN_API_KEY: ADMIN_KEY,
      HOST: '127.0.0.1',
      PORT: '0',
      WORKERS: '2',
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_SECOND: String(LIMIT),
      ADMIN_RATE_LIMIT_PER_SECOND: String(LIMIT),
      RATE_LIMIT_BURST_SECONDS: '1',
      // Each request below names its own client address, so that only the limit test shares one.
      TRUST_PROXY: '127.0.0.1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: LogLine[] = []
  let rest = ''
  let errors = ''
  child.stdout!.on('data', (chunk: Buffer) => {
    const text = rest + chunk.toString('utf8')
    const parts = text.split('\n')
    rest = parts.pop()!
    for (const part of parts) if (part.startsWith('{')) lines.push(JSON.parse(part) as LogLine)
  })
  child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString('utf8')))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  t.teardown(async () => {
    if (child.exitCode !== null) return
    // The workers stop with their primary; SIGKILL would leave them running until they notice.
    child.kill('SIGTERM')
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))])
    child.kill('SIGKILL')
  })

  /** Waits (bounded) until a log line matches. */
  async function waitForLine(match: (line: LogLine) => boolean, what: string, timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      const found = lines.find(match)
      if (found) return found
      if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}): ${errors}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    throw new Error(`no log line ${what} within ${timeoutMs} ms`)
  }

  const banner = await waitForLine((line) => line.msg.startsWith('Outpost listening'), 'announcing the start')
  const base = banner.url!
  let nextAddress = 1
  /** A request from a client address of its own (TRUST_PROXY lets the test name it), unless `from` is given. */
  const request = (path: string, init: RequestInit & { from?: string } = {}) => {
    const from = init.from ?? `10.1.${Math.floor(nextAddress / 250)}.${(nextAddress++ % 250) + 1}`
    return fetch(`${base}${path}`, {
      ...init,
      headers: { 'content-type': 'application/json', 'x-forwarded-for': from, ...(init.headers as object) },
    })
  }
  return {
    base,
    child,
    exited,
    lines,
    primaryPid: banner.pid,
    waitForLine,
    request,
    app: (path: string, init: RequestInit & { from?: string } = {}) =>
      request(`${APP}${path}`, { ...init, headers: { 'x-api-key': API_KEY, ...(init.headers as object) } }),
    admin: (path: string, init: RequestInit = {}) =>
      request(`${ADMIN}${path}`, { ...init, headers: { 'x-admin-key': ADMIN_KEY, ...(init.headers as object) } }),
    /** The pids of the workers announced as listening, in order. */
    workerPids: () => lines.filter((line) => line.msg === 'worker listening').map((line) => line.worker!),
    /** The pids that wrote a request line for this path. */
    servedBy: (path: string) =>
      new Set(lines.filter((line) => line.url?.split('?')[0] === path).map((line) => line.pid)),
  }
}

/** A GET on a connection of its own (fetch would reuse the pool's), answering its status. */
function onNewConnection(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = get(url, { agent: false, headers, timeout: 10_000 }, (response) => {
      response.resume()
      response.on('end', () => resolve(response.statusCode!))
    })
    request.on('timeout', () => request.destroy(new Error('no answer in 10 s')))
    request.on('error', reject)
  })
}

type Cluster = Awaited<ReturnType<typeof startCluster>>

async function signup(cluster: Cluster, body: Record<string, unknown> = { type: 'ANONYMOUS' }) {
  const response = await cluster.app('/user-management/signup', { method: 'POST', body: JSON.stringify(body) })
  if (response.status !== 201) throw new Error(`signup failed: ${response.status} ${await response.text()}`)
  return (await response.json()) as { userId: string; accessToken: string }
}

/** The value of one series in a Prometheus text exposition (0 when absent). */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  return line ? Number(line.slice(series.length + 1)) : 0
}

eachDialect(t, async (t, dialect) => {
  const smtp = await startSmtp(t)
  const dbEnv = await freshDatabase(t, dialect)
  const cluster = await startCluster(t, { ...dbEnv, SMTP_URL: smtp.url, EMAIL_POLL_INTERVAL_MS: '100' })
  // The primary announces the start once both workers listen.
  const [first, second] = cluster.workerPids()

  t.test('the primary ran the migrations, once, before the workers started', async (t) => {
    const applied = cluster.lines.filter((line) => line.msg === 'migrations applied')
    t.equal(applied.length, 1, 'one migration run')
    t.equal(applied[0]!.pid, cluster.primaryPid, 'by the primary')
    t.same(applied[0]!.applied, Object.keys(MIGRATIONS), 'every migration, each once')
    t.not(first, cluster.primaryPid)
    t.not(second, cluster.primaryPid)
  })

  t.test('requests land on both workers and /metrics sums them over both', async (t) => {
    const path = `${APP}/remote-config/all`
    const count = 40
    // Concurrent requests open several connections, which the primary hands to the workers in turn.
    const statuses = await Promise.all(
      Array.from({ length: count }, () => cluster.app('/remote-config/all').then((r) => r.status)),
    )
    t.same(new Set(statuses), new Set([200]))
    const servedBy = cluster.servedBy(path)
    // A request's log line is written when it ends, which may be just after its answer.
    for (let i = 0; i < 50 && [...servedBy].length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 20))
    t.same([...cluster.servedBy(path)].sort(), [first, second].sort(), 'both workers answered')

    const metrics = await cluster.request('/metrics')
    t.equal(metrics.status, 200)
    const text = await metrics.text()
    t.equal(
      sample(text, `http_requests_total{route="${path}",method="GET",status="200",game="default"}`),
      count,
      'every request counted once, whichever worker answered it',
    )
    t.equal(sample(text, 'outpost_metrics_workers{state="answered"}'), 2)
    t.equal(sample(text, 'outpost_metrics_workers{state="missing"}'), 0)
    // Every worker reads the same queue: the sum must not count it twice.
    t.equal(sample(text, 'outpost_email_queue{status="pending"}'), 0)
  })

  t.test('the per-IP limit counts across the workers: one limit for the instance', async (t) => {
    const path = `${APP}/news`
    const before = new Set(cluster.servedBy(path))
    t.equal(before.size, 0)
    // A connection each: the primary hands new connections to the workers in turn, so both count.
    const started = performance.now()
    const statuses = await Promise.all(
      Array.from({ length: 4 * LIMIT }, () =>
        onNewConnection(`${cluster.base}${path}?language=en`, {
          'x-api-key': API_KEY,
          'x-forwarded-for': '203.0.113.7',
        }),
      ),
    )
    const ms = performance.now() - started
    const passed = statuses.filter((s) => s !== 429).length
    // Counted twice (a bucket per worker), 2 × LIMIT would pass at once.
    t.ok(passed >= LIMIT && passed <= passable(ms), `${passed} passed in ${ms.toFixed(0)} ms: one bucket`)
    t.equal(statuses.filter((s) => s === 429).length, 4 * LIMIT - passed, 'the rest are refused')
    for (let i = 0; i < 50 && cluster.servedBy(path).size < 2; i++) await new Promise((r) => setTimeout(r, 20))
    t.equal(cluster.servedBy(path).size, 2, 'and both workers took part')
  })

  t.test('the admin limit counts across the workers too, per credential', async (t) => {
    const path = `${ADMIN}/gift-codes`
    const started = performance.now()
    const statuses = await Promise.all(
      Array.from({ length: 4 * LIMIT }, () =>
        onNewConnection(`${cluster.base}${path}?limit=1`, { 'x-admin-key': ADMIN_KEY, 'x-forwarded-for': '10.9.9.9' }),
      ),
    )
    const ms = performance.now() - started
    const passed = statuses.filter((s) => s !== 429).length
    t.ok(passed >= LIMIT && passed <= passable(ms), `${passed} passed in ${ms.toFixed(0)} ms: one bucket`)
    for (let i = 0; i < 50 && cluster.servedBy(path).size < 2; i++) await new Promise((r) => setTimeout(r, 20))
    t.equal(cluster.servedBy(path).size, 2, 'and both workers took part')
    // The admin calls of the next tests start with a full bucket.
    await new Promise((resolve) => setTimeout(resolve, 1100))
  })

  t.test('a single-use gift code redeemed by 20 players at once: exactly one succeeds', async (t) => {
    const created = await cluster.admin('/gift-codes', {
      method: 'POST',
      body: JSON.stringify({ code: 'ONLY-ONE', giftData: '{"gems":1}', maxRedemptions: 1 }),
    })
    t.equal(created.status, 201)
    const players = await Promise.all(Array.from({ length: 20 }, () => signup(cluster)))
    const answers = await Promise.all(
      players.map((player) =>
        cluster
          .app('/gift-codes/redeem', {
            method: 'POST',
            headers: { authorization: `Bearer ${player.accessToken}` },
            body: JSON.stringify({ code: 'ONLY-ONE', userId: player.userId }),
          })
          .then(async (r) => ({ status: r.status, body: (await r.json()) as { success: boolean } })),
      ),
    )
    t.same(new Set(answers.map((a) => a.status)), new Set([200]))
    t.equal(answers.filter((a) => a.body.success).length, 1, 'one winner')
    const stored = (await (await cluster.admin('/gift-codes/ONLY-ONE')).json()) as { redemptionCount: number }
    t.equal(stored.redemptionCount, 1, 'one redemption stored')
  })

  t.test('every worker polls the e-mail queue, and each e-mail is delivered once', async (t) => {
    const template = await cluster.admin('/email-templates/hello', {
      method: 'PUT',
      body: JSON.stringify({
        defaultLanguage: 'en',
        clientCallable: true,
        variables: {},
        translations: { en: { subject: 'Hello', html: '<p>Hello</p>', text: 'Hello' } },
      }),
    })
    t.equal(template.status, 200)
    const player = await signup(cluster, {
      type: 'EMAIL',
      email: 'cluster@example.org',
      password: 'correct horse battery',
    })
    const count = 8
    const queued = await Promise.all(
      Array.from({ length: count }, () =>
        cluster
          .app('/email-sending/send', {
            method: 'POST',
            headers: { authorization: `Bearer ${player.accessToken}` },
            body: JSON.stringify({ userId: player.userId, templateSlug: 'hello', language: 'en', variables: {} }),
          })
          .then((r) => r.status),
      ),
    )
    t.same(new Set(queued), new Set([201]), 'queued')
    // The sign-up's verification e-mail comes too.
    await smtp.waitFor(count + 1, 20_000)
    // Several more polls of both workers: a second delivery of any e-mail would arrive now.
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const hello = smtp.mails.filter((mail) => mail.to.includes('cluster@example.org') && mail.subject === 'Hello')
    t.equal(hello.length, count, 'each once')
    t.equal(smtp.mails.length, count + 1, 'and nothing else twice')
  })

  t.test('a worker that dies is replaced; SIGTERM stops the primary and every worker', async (t) => {
    process.kill(first!, 'SIGKILL')
    const replaced = await cluster.waitForLine(
      (line) => line.msg === 'worker listening' && line.worker !== first && line.worker !== second,
      'for the replacement',
    )
    const died = cluster.lines.find((line) => line.msg.startsWith('worker died'))
    t.equal(died?.worker, first, 'the death is logged')
    const answers = await Promise.all(Array.from({ length: 10 }, () => cluster.app('/remote-config/all')))
    t.same(new Set(answers.map((r) => r.status)), new Set([200]), 'the instance answers')
    const text = await (await cluster.request('/metrics')).text()
    t.equal(sample(text, 'outpost_metrics_workers{state="answered"}'), 2, 'the replacement is summed too')

    cluster.child.kill('SIGTERM')
    t.equal(await cluster.exited, 0, 'clean exit')
    for (const pid of [second!, replaced.worker!]) {
      const alive = (() => {
        try {
          process.kill(pid, 0)
          return true
        } catch {
          return false
        }
      })()
      t.notOk(alive, `worker ${pid} has stopped`)
    }
  })
})

t.test(
  'a worker whose primary does not answer: requests pass uncounted within the bound, said once in the log',
  async (t) => {
    const logged: string[] = []
    // A channel whose messages go nowhere: the primary has stalled.
    const silent = new Channel((_message, done) => done(null))
    const app = await buildApp({
      config: testConfig({
        ...(await freshDatabase(t, 'sqlite')),
        RATE_LIMIT_ENABLED: 'true',
        RATE_LIMIT_PER_SECOND: '1',
        LOG_LEVEL: 'warn',
      }),
      cluster: silent,
      logStream: { write: (line: string) => void logged.push(line) },
    })
    t.teardown(() => app.close())
    const request = () =>
      app.inject({ method: 'GET', url: `${APP}/remote-config/all`, headers: { 'x-api-key': API_KEY } })
    // The first request also loads the route's content: not timed.
    t.equal((await request()).statusCode, 200)
    for (let i = 0; i < 3; i++) {
      const started = performance.now()
      const answer = await request()
      const ms = performance.now() - started
      t.equal(answer.statusCode, 200, 'passes although past the limit of 1 per second')
      t.ok(ms < PRIMARY_COUNTER_TIMEOUT_MS + 500, `within the counter bound (${ms.toFixed(0)} ms)`)
    }
    const outages = logged.filter((line) => line.includes("the cluster primary's rate-limit counters is not answering"))
    t.equal(outages.length, 1, 'the outage is logged once')

    const started = performance.now()
    const metrics = await app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' })
    t.equal(metrics.statusCode, 200, "a scrape gets this worker's own metrics")
    t.match(
      metrics.body,
      /http_requests_total\{route="\/api\/v1\/app\/remote-config\/all",method="GET",status="200",game="default"\} 4/,
    )
    t.ok(performance.now() - started < INSTANCE_METRICS_TIMEOUT_MS + 1000, 'after the bounded wait for the sum')
    t.ok(
      logged.some((line) => line.includes('the cluster primary did not sum the metrics')),
      'and the log says why',
    )
  },
)
