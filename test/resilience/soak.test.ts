import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { createConnection, type RowDataPacket } from 'mysql2/promise'
import t from 'tap'
import { ADMIN_KEY, API_KEY, APP, freshDatabase } from '../helpers/app.js'
import { pausableProxy } from '../helpers/faults.js'
import { ownRedis, prepareSoak, soakClient } from '../helpers/soak.js'
import { checkAcknowledged, reportSoak } from '../helpers/soak-checks.js'
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
/** The load runs at least this long, and until a little after the last fault. */
const LOAD_MS = 45_000
const START_TIMEOUT_MS = 90_000

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

    const soak = await prepareSoak(`http://127.0.0.1:${ports[0]}`, urls, CLIENT_TIMEOUT_MS)
    const at = () => soak.traffic.elapsed()
    let stopAt = Infinity

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
    await Promise.all([...Array.from({ length: CONCURRENCY }, () => soakClient(soak, () => stopAt)), faulted])
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
    const { traffic } = soak

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

    const checked = await checkAcknowledged(t, soak, rows)
    t.comment(`soak: latency bound ${LATENCY_BOUND_MS} ms`)
    reportSoak(t, soak, loadMs, CONCURRENCY, checked)
    t.comment(`soak: faults: ${timeline.join('; ')}`)
  },
)
