import { setTimeout as sleep } from 'node:timers/promises'
import t, { type Test } from 'tap'
import { ADMIN, ADMIN_KEY, buildTestApp, testConfig, type TestApp } from '../helpers/app.js'
import { logLines } from '../helpers/faults.js'
import { parsePrometheus, valueOf } from '../helpers/prometheus.js'
import { addGame } from '../helpers/second-game.js'
import { replicationMissing, startReplication, type Replication } from '../helpers/replication.js'
import { bearer, createUser } from '../fixtures/users.js'
import { PROBE_EVERY_MS } from '../../db/read-hosts.js'

// DB_READ_HOST (db/read-hosts.ts) against a MariaDB primary and an async replica of the test's own
// (test/helpers/replication.ts), the replica held back on purpose: the seconds-old reads (an admin
// list, analytics) answer from it while it is within DB_READ_MAX_LAG_MS, the read-your-writes routes
// never do, a replica too far behind or killed leaves those reads to the writer without a 5xx.

const QUERY_TIMEOUT_MS = 1000

t.test('DB_READ_HOST is refused on SQLite and PostgreSQL, with the fix', async (t) => {
  for (const driver of ['sqlite', 'postgres']) {
    t.throws(
      () => testConfig({ DB_DRIVER: driver, DB_READ_HOST: 'replica1:3306' }),
      /^DB_READ_HOST .*names read hosts \(replica1:3306\), but .*: remove DB_READ_HOST, or set DB_DRIVER=mysql/,
      driver,
    )
  }
  t.throws(
    () => testConfig({ DB_DRIVER: 'mysql', DB_READ_HOST: 'a,,b' }),
    /^DB_READ_HOST .*has an empty entry in "a,,b"/,
  )
  t.equal(testConfig({ DB_DRIVER: 'mysql', DB_READ_HOST: 'r1,r2:3307' }).DB_READ_MAX_LAG_MS, 2000)
})

const missing = process.env.TEST_MYSQL_URL ? replicationMissing() : 'TEST_MYSQL_URL is not set'

/** An Outpost over the primary, reading from the replica within `maxLagMs`. */
async function outpost(t: Test, rep: Replication, maxLagMs: number) {
  const log = logLines()
  const ctx = await buildTestApp(t, 'mysql', {
    dbEnv: {
      DB_DRIVER: 'mysql',
      DB_HOST: rep.primary.address,
      DB_READ_HOST: rep.replica.address,
      DB_USER: 'root',
      DB_NAME: 'outpost_r',
      DB_POOL_SIZE: '4',
    },
    env: {
      DB_READ_MAX_LAG_MS: String(maxLagMs),
      DB_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS),
      LOG_LEVEL: 'warn',
    },
    logStream: log.stream,
  })
  await ctx.app.ready()
  return { ctx, log }
}

/** The metrics' view of the read host: 1 while it takes the reads, and its lag. */
async function readHost(ctx: TestApp, host: string) {
  const families = parsePrometheus((await ctx.app.inject({ method: 'GET', url: '/metrics' })).body)
  return {
    reading: valueOf(families, 'outpost_db_read_host', { host }),
    lag: valueOf(families, 'outpost_db_read_host_lag_seconds', { host }) ?? NaN,
  }
}

async function waitFor(what: string, ms: number, check: () => Promise<boolean>) {
  const deadline = performance.now() + ms
  while (performance.now() < deadline) {
    if (await check()) return performance.now()
    await sleep(50)
  }
  throw new Error(`${what} within ${ms} ms`)
}

/** The ids the admin list answers (newest first, one page). */
const listed = async (ctx: Pick<TestApp, 'admin'>) => {
  const res = await ctx.admin({ method: 'GET', url: '/users?limit=100' })
  if (res.statusCode !== 200) throw new Error(`the admin list answered ${res.statusCode} ${res.body}`)
  return (res.json().items as Array<{ userId: string }>).map((user) => user.userId)
}
const players = async (ctx: TestApp) => (await ctx.admin({ method: 'GET', url: '/analytics/counts' })).json().players

t.test(
  'a replica held back: the seconds-old reads answer from it within the bound, from the writer past it or once it is killed',
  { skip: missing, timeout: 90_000 },
  async (t) => {
    const rep = await startReplication(t)
    await rep.query('primary', 'CREATE DATABASE outpost_r CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci')
    // Patient: within its bound the whole test long. Strict: 1.5 s.
    const patient = await outpost(t, rep, 600_000)
    const strict = await outpost(t, rep, 1500)
    const host = rep.replica.address
    for (const { ctx } of [patient, strict])
      await waitFor('reads went to the replica', 10_000, async () => (await readHost(ctx, host)).reading === 1)
    t.match(patient.log.matching(/go to the read host/)[0], { to: host }, 'the move to the replica is logged')

    const before = await createUser(patient.ctx)
    // A second game, its own database on the same servers: its reads go to its database on the replica.
    const second = await addGame(patient.ctx, 'second')
    await strict.ctx.app.games.reload()
    const inSecond = (ctx: TestApp): Pick<TestApp, 'admin'> => ({
      admin: (o) =>
        ctx.app.inject({ ...o, url: `${ADMIN}/games/second${o.url}`, headers: { 'x-admin-key': ADMIN_KEY } }),
    })
    const secondBefore = await createUser({ ...patient.ctx, call: second.call })
    await rep.caughtUp()
    t.ok((await listed(patient.ctx)).includes(before.userId), 'a player written before the hold is listed')
    t.ok((await listed(inSecond(patient.ctx))).includes(secondBefore.userId), 'and one of the second game')
    const playersBefore = await players(patient.ctx)

    // (a) Held back: what is written now stays off the replica, and the seconds-old reads do not see it.
    await rep.hold()
    const heldAt = performance.now()
    const after = await createUser(patient.ctx)
    const secondAfter = await createUser({ ...patient.ctx, call: second.call })
    const [onReplica] = await rep.query('replica', 'SELECT COUNT(*) AS n FROM outpost_r.users WHERE id = ?', [
      after.userId,
    ])
    t.equal(Number(onReplica?.n), 0, 'the replica is held back: the new player is not there')
    const heldList = await listed(patient.ctx)
    t.ok(
      heldList.includes(before.userId) && !heldList.includes(after.userId),
      'the admin list answers from the replica',
    )
    t.equal(await players(patient.ctx), playersBefore, 'analytics answers from the replica (the count before)')
    const secondHeld = await listed(inSecond(patient.ctx))
    t.ok(
      secondHeld.includes(secondBefore.userId) && !secondHeld.includes(secondAfter.userId),
      "the second game's admin list answers from its database on the replica",
    )

    // (b) The read-your-writes routes read the writer: a save then its load, a score then its rank.
    const save = await patient.ctx.call({
      method: 'POST',
      url: '/cloud-save/save',
      headers: bearer(after),
      payload: { userId: after.userId, data: '{"level":7}' },
    })
    t.equal(save.statusCode, 200, save.body)
    const load = await patient.ctx.call({
      method: 'POST',
      url: '/cloud-save/load',
      headers: bearer(after),
      payload: { userId: after.userId },
    })
    t.equal(load.json().saveData, '{"level":7}', 'the load after the save sees it')
    const submit = await patient.ctx.call({
      method: 'POST',
      url: '/leaderboards/default/submit',
      payload: { userId: after.userId, score: 4242 },
    })
    t.equal(submit.statusCode, 200, submit.body)
    const rank = await patient.ctx.call({ method: 'GET', url: `/leaderboards/default/rank?userId=${after.userId}` })
    t.equal(rank.json().score, 4242, 'the rank after the submit sees it')
    t.equal((await readHost(patient.ctx, host)).reading, 1, 'the replica still took the seconds-old reads meanwhile')

    // (c) Past the strict instance's bound its reads leave the replica, without waiting on it.
    const left = await waitFor('the strict instance left the replica', 10_000, async () => {
      return (await readHost(strict.ctx, host)).reading === 0
    })
    const { lag } = await readHost(strict.ctx, host)
    t.ok(lag > 1.5, `the replica was measured ${lag} s behind ${((left - heldAt) / 1000).toFixed(1)} s into the hold`)
    const sent = performance.now()
    t.ok((await listed(strict.ctx)).includes(after.userId), 'past the bound the admin list reads the writer')
    t.ok((await players(strict.ctx)) > playersBefore, 'and analytics too')
    t.ok((await listed(inSecond(strict.ctx))).includes(secondAfter.userId), "and the second game's list")
    t.ok(performance.now() - sent < 500, `answered in ${(performance.now() - sent).toFixed(0)} ms`)
    t.match(strict.log.matching(/reads leave the read host/)[0], { from: host, reason: /behind the writer/ })
    t.equal((await readHost(patient.ctx, host)).reading, 1, 'the patient instance still reads the replica')

    // Let go, the replica catches up and takes the strict instance's reads again.
    await rep.release()
    await rep.caughtUp()
    await waitFor(
      'the strict instance came back to the replica',
      10_000,
      async () => (await readHost(strict.ctx, host)).reading === 1,
    )
    t.ok((await listed(strict.ctx)).includes(after.userId), 'the replica caught up holds the new player')

    // (d) The replica killed: the reads that were on it go to the writer, none fails, none waits long.
    const answers: Array<{ status: number; ms: number; found: boolean }> = []
    const until = performance.now() + 3000
    const reader = async () => {
      while (performance.now() < until) {
        const started = performance.now()
        const res = await patient.ctx.admin({ method: 'GET', url: '/users?limit=100' })
        const found =
          res.statusCode === 200 && res.json().items.some((u: { userId: string }) => u.userId === after.userId)
        answers.push({ status: res.statusCode, ms: performance.now() - started, found })
        await sleep(10)
      }
    }
    const readers = Promise.all([reader(), reader(), reader()])
    await sleep(300)
    await rep.killReplica()
    await readers
    const failed = answers.filter((a) => a.status !== 200)
    const slowest = Math.max(...answers.map((a) => a.ms))
    t.same(failed, [], `${answers.length} admin lists around the kill, none failed`)
    t.ok(
      answers.every((a) => a.found),
      'each saw the new player (the caught-up replica, then the writer)',
    )
    t.ok(slowest < QUERY_TIMEOUT_MS + 500, `slowest answer ${slowest.toFixed(0)} ms`)
    // And they stay there, probe after probe: the probe reads the host alone (it once read the writer's
    // heartbeat when the host failed it, and took the dead host back every 500 ms).
    const states: Array<{ reading: number | undefined; lag: number }> = []
    for (const until = performance.now() + 4 * PROBE_EVERY_MS; performance.now() < until; await sleep(100))
      states.push(await readHost(patient.ctx, host))
    t.same(
      states.filter((s) => s.reading !== 0),
      [],
      `the reads are on the writer (${states.length} looks over ${4 * PROBE_EVERY_MS} ms)`,
    )
    t.ok(
      states.every((s) => Number.isNaN(s.lag)),
      'the lag of a replica that does not answer is unknown',
    )
    t.match(patient.log.matching(/reads leave the read host/)[0], { from: host, reason: /does not answer/ })
    t.comment(
      `held back: left the replica ${((left - heldAt) / 1000).toFixed(1)} s into the hold (bound 1.5 s); ` +
        `killed: ${answers.length} admin lists, 0 failed, slowest ${slowest.toFixed(0)} ms`,
    )
  },
)
