import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { logLines } from '../helpers/faults.js'
import { galeraMissing, startGalera } from '../helpers/galera.js'
import { parsePrometheus, valueOf } from '../helpers/prometheus.js'
import { addGame } from '../helpers/second-game.js'
import { createUser } from '../fixtures/users.js'

// DB_HOST listing the three nodes of a Galera cluster of the test's own (test/helpers/galera.ts):
// the node written to is killed with SIGKILL, and Outpost goes on on the next one. The same with
// proxies standing for the hosts, killed, hung and all down: db-failover.test.ts.

const QUERY_TIMEOUT_MS = 1000
const MARGIN_MS = 1000
/**
 * How long the nodes left wait before they evict a node that stopped answering (Galera's
 * evs.suspect_timeout, 5 s by default): until then the cluster commits nothing, on any node.
 */
const EVICTION_MS = 5000

t.test(
  'the node written to is killed, then the next set aside: every game goes on on the node after, its writes replicated',
  { skip: galeraMissing(), timeout: 120_000 },
  async (t) => {
    const cluster = await startGalera(t)
    await cluster.query(0, 'CREATE DATABASE outpost_g CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci')
    const [first, second, third] = cluster.nodes
    const log = logLines()
    const ctx = await buildTestApp(t, 'mysql', {
      dbEnv: {
        DB_DRIVER: 'mysql',
        DB_HOST: cluster.nodes.map((node) => node.address).join(','),
        DB_USER: 'root',
        DB_NAME: 'outpost_g',
        DB_POOL_SIZE: '6',
      },
      env: { DB_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS), LOG_LEVEL: 'warn' },
      logStream: log.stream,
    })
    const other = await addGame(ctx, 'second')
    const games: Array<{ call: TestApp['call']; userId: string }> = []
    for (const call of [ctx.call, other.call]) games.push({ call, userId: (await createUser({ ...ctx, call })).userId })

    // Writes of both games, 4 at a time, for `ms`; `at` counts from `fault()`, called after `lead` ms.
    const drive = async (ms: number, lead: number, fault: () => Promise<unknown>) => {
      const answers: Array<{ at: number; ms: number; status: number }> = []
      let n = 0
      let faultAt = Infinity
      const until = performance.now() + ms
      const writer = async () => {
        while (performance.now() < until) {
          const game = games[n % 2]!
          const score = ++n
          const sent = performance.now()
          const res = await game.call({
            method: 'POST',
            url: '/leaderboards/default/submit',
            payload: { userId: game.userId, score },
          })
          answers.push({ at: sent - faultAt, ms: performance.now() - sent, status: res.statusCode })
          await sleep(5)
        }
      }
      const writers = Promise.all(Array.from({ length: 4 }, writer))
      await sleep(lead)
      faultAt = performance.now()
      const wall = Date.now()
      await fault()
      await writers
      return { answers, wall }
    }
    const { answers, wall: killedAtWall } = await drive(1000 + EVICTION_MS + 4000, 1000, () => cluster.kill(0))

    const slowest = Math.max(...answers.map((a) => a.ms))
    const failed = answers.filter((a) => a.status !== 200)
    const lastFailed = Math.max(0, ...failed.map((a) => a.at + a.ms))
    // One bound per request (DB_QUERY_TIMEOUT_MS): a request that waited for a connection while the
    // stalled cluster held the pool (or while the list moved to the next node) has only the rest of
    // that bound for its statement, which wsrep_sync_wait holds until the dead node is evicted.
    t.ok(slowest < QUERY_TIMEOUT_MS + MARGIN_MS, `no request held past its bound: slowest ${slowest.toFixed(0)} ms`)
    t.ok(
      failed.every((a) => a.status === 503 && a.at >= -MARGIN_MS),
      `only requests around the kill failed, with 503 (${failed.length})`,
    )
    // The cluster takes writes again once it has evicted the dead node; a write waiting for that
    // answers 503 at its bound, and the next one is tried.
    t.ok(
      lastFailed < EVICTION_MS + 2 * QUERY_TIMEOUT_MS + MARGIN_MS,
      `answered 200 from ${lastFailed.toFixed(0)} ms after the kill`,
    )
    const after = answers.filter((a) => a.at > lastFailed)
    t.ok(after.length > 20 && after.every((a) => a.status === 200), `${after.length} writes answered 200 after`)

    const moved = log.matching(/database host/)
    t.equal(moved.length, 1, 'one failover (the writes the stalled cluster timed out moved nothing)')
    t.match(moved[0], { from: first!.address, to: second!.address })
    const movedAfter = Number(moved[0]?.time) - killedAtWall
    t.ok(movedAfter < QUERY_TIMEOUT_MS, `Outpost moved to the next node ${movedAfter} ms after the kill`)
    t.comment(
      `node killed: moved to the next node after ${movedAfter} ms; ${answers.length} writes, ${failed.length} ` +
        `answered 503 while the cluster evicted the node, the last failure ended ${lastFailed.toFixed(0)} ms ` +
        `after the kill, slowest answer ${slowest.toFixed(0)} ms`,
    )
    const families = parsePrometheus((await ctx.app.inject({ method: 'GET', url: '/metrics' })).body)
    t.equal(valueOf(families, 'outpost_db_host', { host: second!.address }), 1)
    t.equal(valueOf(families, 'outpost_db_failovers_total', {}), 1)

    // The node written to now is set aside for maintenance: it takes connections and answers `SELECT 1`,
    // and refuses every statement on a table (errno 1047). Its state says so: the third node takes over.
    const aside = await drive(3000, 500, () => cluster.query(1, 'SET GLOBAL wsrep_reject_queries = ALL'))
    const refused = aside.answers.filter((a) => a.status !== 200)
    t.ok(
      refused.every((a) => a.status === 503),
      `the writes it refused answered 503 (${refused.length} of ${aside.answers.length})`,
    )
    const movedAgain = log.matching(/database host/)[1]
    t.match(movedAgain, { from: second!.address, to: third!.address, reason: /wsrep_reject_queries ALL/ })
    const lastRefused = Math.max(0, ...refused.map((a) => a.at + a.ms))
    t.ok(lastRefused < 500, `answered 200 from ${lastRefused.toFixed(0)} ms after the node was set aside`)
    t.comment(`node set aside: ${refused.length} writes answered 503, the last ${lastRefused.toFixed(0)} ms after`)
    await cluster.query(1, 'SET GLOBAL wsrep_reject_queries = NONE')

    const families2 = parsePrometheus((await ctx.app.inject({ method: 'GET', url: '/metrics' })).body)
    t.equal(valueOf(families2, 'outpost_db_host', { host: third!.address }), 1)
    t.equal(valueOf(families2, 'outpost_db_failovers_total', {}), 2)

    // What the third node took, the second holds too: one cluster, both games.
    const best = (node: number, database: string) =>
      cluster.query(node, `SELECT MAX(score) AS best FROM \`${database}\`.leaderboard_entries`)
    for (const database of ['outpost_g', 'outpost_g__second']) {
      const [onThird] = await best(2, database)
      const [onSecond] = await best(1, database)
      t.ok(Number(onThird?.best) > 0, `${database}: scores written`)
      t.equal(onSecond?.best, onThird?.best, `${database}: the second node holds what the third took`)
    }
  },
)
