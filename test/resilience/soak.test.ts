import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { createConnection, type RowDataPacket } from 'mysql2/promise'
import t from 'tap'
import { ADMIN, ADMIN_KEY, API_KEY, APP, freshDatabase } from '../helpers/app.js'
import { pausableProxy } from '../helpers/faults.js'
import { ownRedis, redeem, saveGame, signUp, submitScore, Traffic, validatedRun, type Soak } from '../helpers/soak.js'
import { freePort, serverNodeFlags, startNode, type Server } from '../../bench/processes.js'

/**
 * The soak: two server processes on one MariaDB database and one Redis, under a bounded mixed write
 * load, while one process is killed with SIGKILL and restarted, the database stops answering (a TCP
 * proxy holds every byte) and Redis is killed and restarted. Then every acknowledged write is looked
 * up in the database. Timings are generous (a loaded 2-core CI machine); the checks are exact.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const SERVER = fileURLToPath(new URL('../../server.js', import.meta.url))
const QUERY_TIMEOUT_MS = 2000
/**
 * The longest a request may take: the server's bound on a database wait (DB_QUERY_TIMEOUT_MS, docs/deployment.md,
 * "Several instances": every route answers, with a 503 at worst, within it), plus room for a loaded
 * machine. The client gives up later still, and a request it gives up on fails the soak.
 */
const LATENCY_BOUND_MS = QUERY_TIMEOUT_MS + 3000
const CLIENT_TIMEOUT_MS = 20_000
/** Players in flight at once (each one request at a time, but the run's doubled submit). */
const CONCURRENCY = 6
const STEPS_PER_PLAYER = 12
/** The load runs at least this long, and until a little after the last fault. */
const LOAD_MS = 45_000
const START_TIMEOUT_MS = 90_000
const GIFT_CODE = 'SOAK-GIFT'
const MAX_REDEMPTIONS = 8
const RUN_VALUE = { key: 'coins', amount: 5 }

const mysqlUrl = process.env.TEST_MYSQL_URL
const redisMissing = spawnSync('redis-server', ['--version']).status !== 0

t.test(
  'soak: kill -9, a hung database and a dead Redis under a mixed write load lose no acknowledged write',
  {
    skip: !mysqlUrl
      ? 'TEST_MYSQL_URL is not set: the soak runs on MariaDB only'
      : redisMissing
        ? 'redis-server is not installed: the soak starts a Redis of its own'
        : false,
  },
  async (t) => {
    const dbEnv = await freshDatabase(t, 'mysql')
    const proxy = await pausableProxy(t, { host: dbEnv.DB_HOST!, port: Number(dbEnv.DB_PORT) })
    t.teardown(() => proxy.resume())
    const redis = ownRedis(t, await freePort())
    await redis.start()
    const dir = mkdtempSync(join(tmpdir(), 'outpost-soak-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))

    const ports = [await freePort(), await freePort()]
    const servers: Array<Server | null> = [null, null]
    const start = async (i: number) => {
      servers[i] = await startNode(SERVER, [], {
        cwd: dir,
        port: ports[i],
        logFile: join(dir, `server-${i}.log`),
        nodeArgs: serverNodeFlags(ROOT),
        // A first start migrates a fresh database; on a loaded CI machine that alone can take 30 s.
        startTimeoutMs: START_TIMEOUT_MS,
        env: {
          ...dbEnv,
          DB_HOST: proxy.host,
          DB_PORT: String(proxy.port),
          DB_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS),
          API_KEY,
          ADMIN_API_KEY: ADMIN_KEY,
          HOST: '127.0.0.1',
          PORT: String(ports[i]),
          WORKERS: '1',
          LOG_LEVEL: 'warn',
          REDIS_URL: redis.url,
          // Counted in Redis, never reached: the soak is about writes, not about being limited.
          RATE_LIMIT_ENABLED: 'true',
          RATE_LIMIT_PER_SECOND: '1000000',
          CONSOLE_ENABLED: 'false',
        },
      })
    }
    t.teardown(() => Promise.all(servers.map((server) => server?.stop())))
    // One after the other: the second waits for the first's migrations anyway.
    await start(0)
    await start(1)
    const urls = ports.map((port) => `http://127.0.0.1:${port}${APP}`)

    const admin = async (method: string, path: string, body: unknown) => {
      const response = await fetch(`http://127.0.0.1:${ports[0]}${ADMIN}${path}`, {
        method,
        headers: { 'content-type': 'application/json', 'x-admin-key': ADMIN_KEY },
        body: JSON.stringify(body),
      })
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`)
    }
    await admin('PUT', '/leaderboards/runs', { name: 'Soak runs', validatedOnly: true })
    await admin('PUT', `/validated-actions/values/${RUN_VALUE.key}`, {})
    await admin('POST', '/gift-codes', { code: GIFT_CODE, giftData: '{"gems":1}', maxRedemptions: MAX_REDEMPTIONS })

    const soak: Soak = {
      traffic: new Traffic(urls, { 'x-api-key': API_KEY }, CLIENT_TIMEOUT_MS),
      giftCode: GIFT_CODE,
      runValue: RUN_VALUE,
      players: [],
      next: 0,
    }
    const at = () => soak.traffic.elapsed()
    let stopAt = Infinity

    /** A client: new players one after the other, each a fixed script of writes. */
    const client = async () => {
      while (at() < stopAt) {
        const player = await signUp(soak, stopAt)
        if (!player) return
        for (let step = 0; step < STEPS_PER_PLAYER && at() < stopAt; step++) {
          if (step === 1) await redeem(soak, player)
          else if (step % 3 === 0) await submitScore(soak, player)
          else if (step % 3 === 1) await saveGame(soak, player)
          else await validatedRun(soak, player)
        }
      }
    }

    /** The faults, one after the other, each while the load runs. */
    const timeline: string[] = []
    const note = (what: string) => timeline.push(`${(at() / 1000).toFixed(1)} s ${what}`)
    const killWindow = { server: 1, from: 0, to: 0 }
    const faults = async () => {
      await sleep(6000)
      killWindow.from = at()
      const victim = servers[1]!
      victim.children[0]!.kill('SIGKILL')
      servers[1] = null
      // The process is gone already: this only ends its watcher.
      await victim.stop()
      note('server 1 killed (SIGKILL)')
      await sleep(2000)
      await start(1)
      killWindow.to = at() + 2000
      note('server 1 restarted and answering')
      await sleep(Math.max(4000, 20_000 - at()))
      proxy.pause()
      note('database paused')
      await sleep(4000)
      proxy.resume()
      note('database resumed')
      await sleep(6000)
      await redis.stop()
      note('Redis killed')
      await sleep(4000)
      await redis.start()
      note('Redis restarted (empty)')
    }
    const faulted = faults()
      .catch((error) => {
        stopAt = 0
        throw error
      })
      .then(() => (stopAt = Math.max(LOAD_MS, at() + 6000)))
    await Promise.all([...Array.from({ length: CONCURRENCY }, client), faulted])
    const loadMs = at()
    for (const [i, server] of servers.entries()) {
      await server?.stop()
      servers[i] = null
    }

    const db = await createConnection({
      host: dbEnv.DB_HOST,
      port: Number(dbEnv.DB_PORT),
      user: dbEnv.DB_USER,
      password: dbEnv.DB_PASS,
      database: dbEnv.DB_NAME,
    })
    t.teardown(() => db.end())
    const rows = async (query: string, values: unknown[] = []) => (await db.query<RowDataPacket[]>(query, values))[0]
    const { traffic, players } = soak
    const ids = players.map((p) => p.userId)

    t.same(traffic.violations, [], 'every answer was one the contract allows (5xx: only the documented 503)')
    t.ok(traffic.maxMs < LATENCY_BOUND_MS, `slowest request ${traffic.maxMs.toFixed(0)} ms (${traffic.slowest})`)
    t.same(
      traffic.networkErrors.filter(
        (e) => e.server !== killWindow.server || e.at < killWindow.from || e.at > killWindow.to,
      ),
      [],
      'requests went unanswered only on the killed server while it was down',
    )
    t.ok((traffic.byStatus.get('503 SERVICE_UNAVAILABLE') ?? 0) > 0, 'the database pause was felt (503s)')
    t.ok(traffic.networkErrors.length > 0, 'the kill was felt (requests cut or refused)')
    const redisWarnings = [0, 1].map(
      (i) =>
        readFileSync(join(dir, `server-${i}.log`), 'utf8')
          .split('\n')
          .filter((line) => line.includes('rate-limit Redis is not answering')).length,
    )
    t.ok(redisWarnings[0]! + redisWarnings[1]! > 0, `the Redis outage was felt (warnings: ${redisWarnings})`)

    const users = new Set((await rows('SELECT id FROM users WHERE id IN (?)', [ids])).map((r) => r.id))
    t.equal(users.size, players.length, `every acknowledged sign-up is stored (${players.length})`)

    const scores = new Map<string, number>()
    for (const r of await rows(
      'SELECT l.board_key, e.user_id, e.score FROM leaderboard_entries e JOIN leaderboards l ON l.id = e.board_id',
    ))
      scores.set(`${r.board_key}/${r.user_id}`, Number(r.score))
    const lowScores = players.filter((p) => {
      const stored = scores.get(`default/${p.userId}`) ?? 0
      return stored < p.ackedScore || stored > p.sentScore
    })
    t.same(lowScores, [], 'every best score is at least the best acknowledged one, and was sent')

    const saves = new Map(
      (await rows('SELECT user_id, data, version FROM cloud_saves')).map((r) => [
        r.user_id as string,
        { version: Number(r.version), data: Buffer.from(r.data).toString('utf8') },
      ]),
    )
    const badSaves = players.flatMap((p) => {
      const stored = saves.get(p.userId) ?? { version: 0, data: '' }
      const { version, known, pending } = p.save
      const holds =
        (stored.version === version && (version === 0 || known.has(stored.data))) ||
        (stored.version === version + 1 && pending.has(stored.data))
      return holds ? [] : [{ userId: p.userId, stored, client: { version, known: [...known], pending: [...pending] } }]
    })
    t.same(
      badSaves,
      [],
      'every save chain is whole: the stored version is the last one a client saw, no gap, no repeat',
    )

    const [code] = await rows('SELECT id, redemption_count FROM gift_codes WHERE code = ?', [GIFT_CODE])
    const redeemed = new Set(
      (await rows('SELECT user_id FROM gift_code_redemptions WHERE gift_code_id = ?', [code!.id])).map(
        (r) => r.user_id,
      ),
    )
    const tried = players.filter((p) => p.redeem !== 'none')
    const told = tried.filter((p) => p.redeem === 'redeemed' || p.redeem === 'redeemed-unanswered')
    t.ok(tried.length > MAX_REDEMPTIONS, `more players tried the code (${tried.length}) than it allows`)
    t.equal(Number(code!.redemption_count), redeemed.size, 'the count matches the redemptions stored')
    t.equal(redeemed.size, MAX_REDEMPTIONS, 'exactly maxRedemptions redemptions')
    t.same(
      told.filter((p) => !redeemed.has(p.userId)).map((p) => p.userId),
      [],
      'every player told "redeemed" has the redemption',
    )
    t.same(
      tried.filter((p) => p.redeem === 'exhausted' && redeemed.has(p.userId)).map((p) => p.userId),
      [],
      'no player told "exhausted" has one',
    )
    t.equal(tried.filter((p) => p.redeem === 'unknown').length, 0, 'every redemption got a definite answer')
    t.equal(told.length, redeemed.size, 'successful answers = redemptions stored')

    const runs = await rows('SELECT id, user_id, outcome FROM validated_runs')
    const acceptedInDb = new Set(runs.filter((r) => r.outcome === 'ACCEPTED').map((r) => r.id))
    const ackedRuns = players.flatMap((p) => p.acceptedRuns)
    t.same(
      ackedRuns.filter((id) => !acceptedInDb.has(id)),
      [],
      `every run answered accepted is stored accepted (${ackedRuns.length})`,
    )
    t.same(
      await rows(
        "SELECT run_id, COUNT(*) AS n FROM validated_submissions WHERE code = 'ACCEPTED' GROUP BY run_id HAVING COUNT(*) > 1",
      ),
      [],
      'no run accepted twice',
    )
    const balances = new Map(
      (await rows('SELECT user_id, balance FROM validated_balances WHERE value_key = ?', [RUN_VALUE.key])).map((r) => [
        r.user_id as string,
        Number(r.balance),
      ]),
    )
    const wrongBalances = players.filter((p) => {
      const accepted = runs.filter((r) => r.user_id === p.userId && r.outcome === 'ACCEPTED').length
      return (balances.get(p.userId) ?? 0) !== accepted * RUN_VALUE.amount
    })
    t.same(wrongBalances, [], "every balance is its player's accepted runs' credits, each once")
    t.same(
      players.filter((p) => (scores.get(`runs/${p.userId}`) ?? 0) < p.ackedRunScore),
      [],
      'every accepted run score is on the board',
    )

    const acked = {
      signups: players.length,
      submits: players.reduce((n, p) => n + p.ackedSubmits, 0),
      saves: players.reduce((n, p) => n + p.save.acked, 0),
      runs: ackedRuns.length,
      redemptions: told.length,
    }
    const statuses = [...traffic.byStatus].sort(([a], [b]) => a.localeCompare(b))
    t.comment(`soak: ${traffic.requests} requests in ${(loadMs / 1000).toFixed(1)} s, ${CONCURRENCY} clients`)
    t.comment(`soak: by status: ${statuses.map(([status, n]) => `${status} ×${n}`).join(', ')}`)
    t.comment(`soak: slowest ${traffic.maxMs.toFixed(0)} ms (${traffic.slowest}); bound ${LATENCY_BOUND_MS} ms`)
    t.comment(
      `soak: acknowledged writes checked: ${Object.values(acked).reduce((a, b) => a + b, 0)} ` +
        `(${Object.entries(acked)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')})`,
    )
    t.comment(`soak: faults: ${timeline.join('; ')}`)
  },
)
