import { setTimeout as sleep } from 'node:timers/promises'
import t, { type Test } from 'tap'
import { buildTestApp, freshDatabase, serverUrl, type TestApp } from '../helpers/app.js'
import { killableProxy, logLines } from '../helpers/faults.js'
import { parsePrometheus, valueOf } from '../helpers/prometheus.js'
import { addGame } from '../helpers/second-game.js'
import { createUser } from '../fixtures/users.js'
import { submit } from '../fixtures/leaderboard.js'

// A list of database hosts (DB_HOST=a,b) on MySQL/MariaDB: the test's one server stands behind two
// proxies, each a "host" the test can kill (connections closed, new ones refused) or hang (nothing
// answered). PostgreSQL and SQLite refuse a list at start-up (test/db/hosts.test.ts).

const QUERY_TIMEOUT_MS = 1000
// Room on top of each bound for a loaded test machine.
const MARGIN_MS = 1000
const CONCURRENCY = 4

type Proxy = Awaited<ReturnType<typeof killableProxy>>
interface Answer {
  /** When it was sent, in ms after the fault. */
  at: number
  ms: number
  status: number
}

/** The app over a fresh database reached through `proxies`, in their order, with its log lines kept. */
async function failoverApp(t: Test, count = 2) {
  const dbEnv = await freshDatabase(t, 'mysql')
  const target = { host: dbEnv.DB_HOST!, port: Number(dbEnv.DB_PORT) }
  const proxies: Proxy[] = []
  for (let i = 0; i < count; i++) proxies.push(await killableProxy(t, target))
  const log = logLines()
  const build = () =>
    buildTestApp(t, 'mysql', {
      dbEnv: { ...dbEnv, DB_HOST: proxies.map((p) => p.address).join(','), DB_POOL_SIZE: '6' },
      env: { DB_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS), LOG_LEVEL: 'warn' },
      logStream: log.stream,
    })
  return { proxies, log, build }
}

/** Requests of both games (a read and a write that reach the database), CONCURRENCY at a time, for `ms`. */
async function drive(games: Array<{ call: TestApp['call']; userId: string }>, ms: number, from: number) {
  const answers: Answer[] = []
  const until = performance.now() + ms
  let n = 0
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        const game = games[n % games.length]!
        const write = n++ % 2 === 0
        const at = performance.now()
        const res = write
          ? await game.call({
              method: 'POST',
              url: '/leaderboards/default/submit',
              payload: { userId: game.userId, score: n },
            })
          : await game.call({ method: 'GET', url: `/leaderboards/default/rank?userId=${game.userId}` })
        answers.push({ at: at - from, ms: performance.now() - at, status: res.statusCode })
        await sleep(5)
      }
    }),
  )
  return answers
}

/**
 * The app over two proxies (`a`, then `b`), with a second game and a player and a score in each game
 * (the rank read then has a row to find): what each failover case starts from.
 */
async function servingApp(t: Test) {
  const { proxies, log, build } = await failoverApp(t)
  const [a, b] = proxies as [Proxy, Proxy]
  const ctx = await build()
  const second = await addGame(ctx, 'second')
  const first = await createUser(ctx)
  await submit(ctx, 'default', first.userId, 1)
  const other = await createUser({ ...ctx, call: second.call })
  await submit({ ...ctx, call: second.call }, 'default', other.userId, 1)
  const games = [
    { call: ctx.call, userId: first.userId },
    { call: second.call, userId: other.userId },
  ]
  return { a, b, log, ctx, games }
}

async function metrics(ctx: TestApp) {
  return parsePrometheus((await ctx.app.inject({ method: 'GET', url: '/metrics' })).body)
}

/** The slowest answer, and when the first request that was answered 200 for good after the fault was sent. */
function summary(answers: Answer[]) {
  const slowest = Math.max(...answers.map((a) => a.ms))
  const failed = answers.filter((a) => a.status !== 200)
  const lastFailed = Math.max(0, ...failed.map((a) => a.at + a.ms))
  return { slowest, failed: failed.length, lastFailed, statuses: [...new Set(failed.map((a) => a.status))] }
}

const skip = serverUrl('mysql') ? undefined : 'TEST_MYSQL_URL is not set: a list of hosts is MySQL/MariaDB only'

t.test(
  'a host that dies: every game goes on on the next host at once, the log and /metrics say so',
  { skip },
  async (t) => {
    const { a, b, log, ctx, games } = await servingApp(t)
    // The start-up check connects to every host once; after it, only the first host is written to.
    const checked = b.state.opened
    t.ok(checked <= 1, 'the second host was checked at the start')
    await drive(games, 300, performance.now())
    t.ok(a.state.opened > 0, `the first host takes the connections (${a.state.opened})`)
    t.equal(b.state.opened, checked, 'the second host none while the first answers')
    let families = await metrics(ctx)
    t.equal(valueOf(families, 'outpost_db_host', { host: a.address }), 1, 'the gauge names the first host')
    t.equal(valueOf(families, 'outpost_db_host', { host: b.address }), 0)
    t.equal(valueOf(families, 'outpost_db_failovers_total', {}), 0)

    const killedAt = performance.now()
    const [answers] = await Promise.all([drive(games, 2500, killedAt), a.kill()])
    const { slowest, failed, lastFailed, statuses } = summary(answers)
    t.ok(slowest < QUERY_TIMEOUT_MS + MARGIN_MS, `no request held past the bound: slowest ${slowest.toFixed(0)} ms`)
    t.ok(failed <= CONCURRENCY, `only requests in flight at the kill failed: ${failed} of ${answers.length}`)
    t.ok(
      statuses.every((s) => s === 503),
      `those answered 503 (${statuses.join(', ') || 'none'})`,
    )
    t.ok(lastFailed < 500, `every request answered 200 from ${lastFailed.toFixed(0)} ms after the kill`)
    t.comment(
      `host killed: ${answers.length} requests over 2.5 s, ${failed} failed, the last failure ended ` +
        `${lastFailed.toFixed(0)} ms after the kill, slowest answer ${slowest.toFixed(0)} ms`,
    )
    t.ok(b.state.opened > checked, 'the second host took over')

    const warnings = log.matching(/database host/)
    t.equal(warnings.length, 1, 'one line for one failover')
    t.equal(warnings[0]?.level, 40, 'a warning')
    t.match(warnings[0]?.msg, `database host ${a.address} does not answer`)
    t.match(warnings[0]?.msg, `writing to ${b.address} from now on`)
    t.match(warnings[0], { from: a.address, to: b.address, reason: /ECONNREFUSED|closed|lost/ })
    families = await metrics(ctx)
    t.equal(valueOf(families, 'outpost_db_host', { host: a.address }), 0)
    t.equal(valueOf(families, 'outpost_db_host', { host: b.address }), 1, 'the gauge names the second host')
    t.equal(valueOf(families, 'outpost_db_failovers_total', {}), 1, 'one failover counted')

    // Back again, the first host is not taken back: the writer moves only when the one in use fails.
    await a.revive()
    const openedBefore = a.state.opened
    t.same(summary(await drive(games, 300, performance.now())).failed, 0)
    t.equal(a.state.opened, openedBefore, 'no connection to the first host once it is back')

    // The second dies in turn: the list wraps around to the first.
    const [again] = await Promise.all([drive(games, 1000, performance.now()), b.kill()])
    t.ok(summary(again).lastFailed < 500, 'answered from the first host again')
    t.ok(a.state.opened > openedBefore, 'the first host took over')
    t.match(log.matching(/database host/)[1]?.msg, `database host ${b.address} does not answer`)
    t.match(log.matching(/database host/)[1]?.msg, `writing to ${a.address}`)
    families = await metrics(ctx)
    t.equal(valueOf(families, 'outpost_db_host', { host: a.address }), 1)
    t.equal(valueOf(families, 'outpost_db_failovers_total', {}), 2)
  },
)

t.test('a host that hangs: 503 within the bound meanwhile, then the next host', { skip }, async (t) => {
  const { a, b, log, ctx, games } = await servingApp(t)

  const hungAt = performance.now()
  a.hang()
  const answers = await drive(games, 4 * QUERY_TIMEOUT_MS, hungAt)
  const { slowest, failed, lastFailed } = summary(answers)
  t.ok(slowest < QUERY_TIMEOUT_MS + MARGIN_MS, `no request held past the bound: slowest ${slowest.toFixed(0)} ms`)
  // The first statement that times out (one bound) has the host probed (one bound more at most).
  t.ok(lastFailed < 2 * QUERY_TIMEOUT_MS + MARGIN_MS, `answered 200 from ${lastFailed.toFixed(0)} ms after the hang`)
  const after = answers.filter((a) => a.at > lastFailed)
  t.ok(after.length > 10 && after.every((a) => a.status === 200), `then ${after.length} requests answered 200`)
  t.comment(
    `host hung: ${failed} of ${answers.length} requests answered 503, the last ${lastFailed.toFixed(0)} ms ` +
      `after the hang (DB_QUERY_TIMEOUT_MS=${QUERY_TIMEOUT_MS}), slowest answer ${slowest.toFixed(0)} ms`,
  )
  t.ok(b.state.opened > 0, 'the second host took over')
  const warnings = log.matching(/database host/)
  t.equal(warnings.length, 1, 'one failover')
  t.match(warnings[0], { from: a.address, to: b.address, reason: /within 1000 ms/ })
  t.equal(valueOf(await metrics(ctx), 'outpost_db_host', { host: b.address }), 1)
})

t.test(
  'every host down: 503 within the bound and one warning, then the first host back is taken',
  { skip },
  async (t) => {
    const { a, b, log, games } = await servingApp(t)

    await Promise.all([a.kill(), b.kill()])
    const down = summary(await drive(games, 1500, performance.now()))
    t.ok(down.slowest < QUERY_TIMEOUT_MS + MARGIN_MS, `slowest answer ${down.slowest.toFixed(0)} ms`)
    t.same(down.statuses, [503], 'every request 503')
    const none = log.matching(/no database host answers/)
    t.equal(none.length, 1, 'said once, not per request')
    t.match(none[0]?.msg, a.address)
    t.match(none[0]?.msg, b.address)
    t.equal(log.matching(/writing to/).length, 0, 'no move to a host that does not answer')

    await b.revive()
    const revivedAt = performance.now()
    const back = summary(await drive(games, 1500, revivedAt))
    t.ok(back.lastFailed < 500, `answered again ${back.lastFailed.toFixed(0)} ms after the second host came back`)
    t.match(log.matching(/writing to/)[0], { from: a.address, to: b.address })
  },
)

t.test(
  'a list whose first host is down at the start: the server starts on the next, and says so',
  { skip },
  async (t) => {
    const { proxies, log, build } = await failoverApp(t)
    const [a, b] = proxies as [Proxy, Proxy]
    await a.kill()
    const ctx = await build()
    await ctx.app.ready()
    const atStart = log.matching(/does not answer/)
    t.ok(atStart.length >= 1, 'a warning names the host that does not answer')
    t.match(atStart[0]?.msg, a.address)
    t.match(atStart[0]?.msg, /connection refused/)
    const user = await createUser(ctx)
    t.equal((await submit(ctx, 'default', user.userId, 5)).statusCode, 200, 'served from the second host')
    t.ok(b.state.opened > 0)
    t.equal(valueOf(await metrics(ctx), 'outpost_db_host', { host: b.address }), 1)
  },
)

t.test(
  'a list whose hosts are all down at the start: the start fails naming each with its fix',
  { skip },
  async (t) => {
    const { proxies, build } = await failoverApp(t)
    await Promise.all(proxies.map((p) => p.kill()))
    const error = await build().then(
      () => null,
      (e: Error) => e,
    )
    t.ok(error, 'the start fails')
    t.match(error?.message, /^no host of DB_HOST answers: /, String(error?.message))
    for (const proxy of proxies) {
      t.match(
        error?.message,
        `cannot connect to MySQL at ${proxy.address} (connection refused): start the MySQL server`,
      )
    }
  },
)
