import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { createConnection, type RowDataPacket } from 'mysql2/promise'
import t from 'tap'
import { mysqlSettings } from '../../bench/mysql.js'
import { API_KEY, APP } from '../helpers/app.js'
import { galeraMissing, startGalera } from '../helpers/galera.js'
import { parsePrometheus, valueOf } from '../helpers/prometheus.js'
import { startServer, type Server } from '../helpers/server-process.js'
import { definite, prepareSoak, soakClient, Traffic, type Soak } from '../helpers/soak.js'
import { checkAcknowledged, reportSoak, type Checked } from '../helpers/soak-checks.js'

/**
 * The soak on a 3-node MariaDB Galera cluster of the test's own (test/helpers/galera.ts): two server
 * processes, each with DB_HOST listing the three nodes in its own order, so that they write to two
 * different nodes, under the mixed write load of the MariaDB soak (test/helpers/soak.ts). The node
 * one of them writes to is killed with SIGKILL: that instance moves to the next node of its list, the
 * cluster evicts the dead node (its writes answer 503 meanwhile); then the node is started again and
 * rejoins, and the load goes on a while. Afterwards every acknowledged write is read through both
 * instances and looked up on every node, the rejoined one included (test/helpers/soak-checks.ts).
 */

const QUERY_TIMEOUT_MS = 1000
/** Room on top of the bound for a loaded 2-core machine. */
const MARGIN_MS = 1000
const CLIENT_TIMEOUT_MS = 20_000
const CONCURRENCY = 6
/** The load before the kill; the wait before the dead node is started again (the cluster evicts it after 5 s). */
const BEFORE_KILL_MS = 5000
const DOWN_MS = 8000
/** The load after the node has rejoined. */
const AFTER_REJOIN_MS = 8000
/** The instance whose node is killed, and that node. */
const VICTIM = 1

const skip =
  galeraMissing() ??
  (process.env.TEST_MYSQL_URL ? undefined : 'TEST_MYSQL_URL is not set: the soak runs on the MySQL leg only')

t.test(
  'Galera soak: a node killed with SIGKILL and rejoined under a mixed write load through two instances loses no acknowledged write',
  { skip, timeout: 240_000 },
  async (t) => {
    const started = performance.now()
    const cluster = await startGalera(t)
    const clusterMs = performance.now() - started
    const name = `outpost_gs_${randomBytes(5).toString('hex')}`
    await cluster.query(0, `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`)
    const addresses = cluster.nodes.map((node) => node.address)
    // Instance 0 lists node 0 first, instance 1 node 1: each moves to the next of its own list.
    const listFrom = (first: number) => addresses.map((_, k) => addresses[(first + k) % addresses.length]).join(',')
    const settings = mysqlSettings(cluster.url(0), name, 8)
    const env = { DB_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS), WORKERS: '1', CONSOLE_ENABLED: 'false' }
    const servers: Server[] = await Promise.all(
      [0, 1].map((i) => startServer(t, { ...settings, DB_HOST: listFrom(i) }, env)),
    )
    const hostOf = async (server: Server) => {
      const families = parsePrometheus(await (await fetch(`${server.base}/metrics`)).text())
      const at = addresses.findIndex((host) => valueOf(families, 'outpost_db_host', { host }) === 1)
      return { at, failovers: valueOf(families, 'outpost_db_failovers_total', {}) }
    }
    t.same(
      await Promise.all(servers.map(hostOf)),
      [
        { at: 0, failovers: 0 },
        { at: 1, failovers: 0 },
      ],
      'the two instances write to two nodes',
    )

    const soak: Soak = await prepareSoak(
      servers[0]!.base,
      servers.map((s) => `${s.base}${APP}`),
      CLIENT_TIMEOUT_MS,
    )
    const at = () => soak.traffic.elapsed()
    let stopAt = Infinity
    const timeline: string[] = []
    const note = (what: string) => timeline.push(`${(at() / 1000).toFixed(1)} s ${what}`)
    const times = { failoverMs: -1, rejoinMs: -1 }
    let killedAtWall = 0
    const faults = async () => {
      await sleep(BEFORE_KILL_MS)
      const killedAt = at()
      killedAtWall = Date.now()
      await cluster.kill(VICTIM)
      note(`node ${VICTIM} killed (SIGKILL)`)
      await sleep(Math.max(0, killedAt + DOWN_MS - at()))
      const restartAt = at()
      note(`node ${VICTIM} started again`)
      await cluster.start(VICTIM)
      times.rejoinMs = at() - restartAt
      note(`node ${VICTIM} rejoined (Synced)`)
      await sleep(AFTER_REJOIN_MS)
    }
    await Promise.all([
      ...Array.from({ length: CONCURRENCY }, () => soakClient(soak, () => stopAt)),
      faults()
        .catch((error) => {
          stopAt = 0
          throw error
        })
        .then(() => (stopAt = at())),
    ])
    const loadMs = at()
    const { traffic } = soak

    t.same(traffic.violations, [], 'every answer was one the contract allows (5xx: only the documented 503)')
    t.same(traffic.networkErrors, [], 'every request was answered')
    // A request's connection wait, its statements and a transaction's retries share one bound
    // (db/pool-bounds.ts); a request with a session reads it first, apart, with a bound of its own:
    // two bounds at most (docs/deployment.md, "A list of database hosts"). How many went past one:
    const pastOne = traffic.durations.filter((ms) => ms > QUERY_TIMEOUT_MS + MARGIN_MS / 4).length
    t.ok(
      traffic.maxMs < 2 * QUERY_TIMEOUT_MS + MARGIN_MS,
      `no request held past its bounds: slowest ${traffic.maxMs.toFixed(0)} ms (${traffic.slowest}); ` +
        `${pastOne} of ${traffic.requests} past one bound + ${MARGIN_MS / 4} ms`,
    )
    const unavailable = traffic.byStatus.get('503 SERVICE_UNAVAILABLE') ?? 0
    t.ok(unavailable > 0, `the kill was felt: ${unavailable} answers 503 while the cluster evicted the node`)
    // The instance that wrote to the dead node says when it moved (its log's warning, with the time).
    const moved = servers[VICTIM]!.logged(/database host/)
    t.match(moved, [{ from: addresses[VICTIM], to: addresses[2] }], 'its log names the node left and the one taken')
    times.failoverMs = Number(moved[0]?.time) - killedAtWall
    t.ok(times.failoverMs >= 0 && times.failoverMs < QUERY_TIMEOUT_MS, `it moved ${times.failoverMs} ms after the kill`)
    t.same(servers[0]!.logged(/database host/), [], 'the other instance logged no move')
    const after = await Promise.all(servers.map(hostOf))
    t.same(
      after,
      [
        { at: 0, failovers: 0 },
        { at: 2, failovers: 1 },
      ],
      'instance 1 moved once, to the next node of its list; instance 0 stayed (its node answered throughout)',
    )

    // Through both instances: each player's save (version and data) and best score, as a client reads them.
    const reads = new Traffic(traffic.servers, { 'x-api-key': API_KEY }, CLIENT_TIMEOUT_MS)
    const wrong: unknown[] = []
    for (const server of [0, 1]) {
      for (const p of soak.players) {
        const load = await reads.send(server, 'POST', '/cloud-save/load', {
          body: { userId: p.userId },
          headers: p.bearer,
          expect: [200],
        })
        const { version, known, pending } = p.save
        const saved = load?.body?.found
          ? { version: load.body.version, data: load.body.data }
          : { version: 0, data: '' }
        const holds =
          (saved.version === version && (version === 0 || known.has(saved.data))) ||
          (saved.version === version + 1 && pending.has(saved.data))
        if (!definite(load) || !holds) wrong.push({ server, userId: p.userId, saved, version, known: [...known] })
        if (p.ackedScore === 0) continue
        const rank = await reads.send(server, 'GET', `/leaderboards/default/rank?userId=${p.userId}`, {
          headers: p.bearer,
          expect: [200],
        })
        if (!definite(rank) || !(rank.body.score >= p.ackedScore))
          wrong.push({ server, userId: p.userId, rank: rank?.body, acked: p.ackedScore })
      }
    }
    t.same(wrong, [], `every save and best score read back through both instances (${reads.requests} reads)`)
    t.same(reads.violations, [], 'every read answered 200')

    // On every node, the rejoined one included: every acknowledged write.
    const checked: Checked[] = []
    for (const node of cluster.nodes) {
      const db = await createConnection({ host: '127.0.0.1', port: node.port, user: 'root', database: name })
      try {
        // Read what the cluster committed before the read, whichever node took it.
        await db.query('SET SESSION wsrep_sync_wait = 1')
        const rows = async (query: string, values: unknown[] = []) =>
          (await db.query<RowDataPacket[]>(query, values))[0]
        checked.push(await checkAcknowledged(t, soak, rows, `node ${node.index}`))
      } finally {
        await db.end()
      }
    }

    reportSoak(t, soak, loadMs, CONCURRENCY, checked[0]!)
    t.comment(`soak: ${pastOne} requests took longer than ${QUERY_TIMEOUT_MS + MARGIN_MS / 4} ms`)
    t.comment(`soak: lost by node: ${checked.map((c, i) => `node ${i} ${c.lost}`).join(', ')}`)
    t.comment(
      `soak: failover ${times.failoverMs.toFixed(0)} ms after the kill, rejoin (start to Synced) ` +
        `${(times.rejoinMs / 1000).toFixed(1)} s; faults: ${timeline.join('; ')}`,
    )
    t.comment(
      `soak: cluster up in ${(clusterMs / 1000).toFixed(1)} s, whole test ` +
        `${((performance.now() - started) / 1000).toFixed(1)} s`,
    )
  },
)
