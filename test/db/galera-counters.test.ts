import t, { type Test } from 'tap'
import { randomBytes, randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import { createDb } from '../../db/index.js'
import { migrateToLatest } from '../../db/migrate.js'
import type { Db } from '../../db/types.js'
import { MIGRATIONS } from '../../app.js'
import { mysqlSettings } from '../../bench/mysql.js'
import { EventHub } from '../../platform/core/events.js'
import { submitScore } from '../../features/leaderboard/service.js'
import { putBoard } from '../../features/leaderboard/admin-service.js'
import { positionAndTotal } from '../../features/leaderboard/ranking.js'
import { galeraMissing, startGalera, type GaleraCluster } from '../helpers/galera.js'
import { testConfig } from '../helpers/app.js'

/**
 * One board's score submits on a 3-node Galera cluster: all through one node (a single writer),
 * then spread over the three nodes (three writers). Galera certifies two transactions from
 * different nodes as conflicting when they change the same row, and every first entry adds 1 to
 * the count tree's rows near the root (leaderboard_counts, features/leaderboard/ranking.ts): without
 * count slots (docs/performance.md, "Hot counters on a Galera cluster") the writers abort each other
 * and the cluster takes fewer submits than one node did. Told for each run: submits per second, the
 * certification failures and brute-force aborts of the cluster (each a retried transaction), and
 * that every position and the total are exact afterwards.
 */

const SUBMITS = 600
const CONCURRENCY = 12
const NODES = 3

/** The cluster's abort counters, summed over its nodes. */
async function aborts(cluster: GaleraCluster): Promise<{ cert: number; bf: number }> {
  let cert = 0
  let bf = 0
  for (let i = 0; i < NODES; i++) {
    const rows = await cluster.query(
      i,
      "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_local_cert_failures', 'wsrep_local_bf_aborts')",
    )
    for (const row of rows) {
      if (row.Variable_name === 'wsrep_local_cert_failures') cert += Number(row.Value)
      else bf += Number(row.Value)
    }
  }
  return { cert, bf }
}

interface Run {
  perSecond: number
  cert: number
  bf: number
}

/** A fresh database with one board and SUBMITS players; `writers` handles, writer i on node i. */
async function submitRun(t: Test, cluster: GaleraCluster, writers: number): Promise<Run> {
  const name = `outpost_c_${randomBytes(5).toString('hex')}`
  await cluster.query(0, `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`)
  const open = (node: number, pool: number) => createDb(testConfig(mysqlSettings(cluster.url(node), name, pool)))
  const handles: Db[] = Array.from({ length: writers }, (_, i) => open(i, Math.ceil(CONCURRENCY / writers)))
  const reader = writers === 1 ? open(1, 2) : handles[1]!
  t.teardown(async () => {
    for (const db of new Set([...handles, reader])) await db.destroy()
  })
  const events = new EventHub()
  const now = Date.now()
  await migrateToLatest(handles[0]!, MIGRATIONS)
  await putBoard(handles[0]!, events, 'hot', { maxScore: 10_000_000 }, now)
  const users = Array.from({ length: SUBMITS }, () => randomUUID())
  const scores = users.map(() => Math.floor(Math.random() * 1_000_000))
  await handles[0]!
    .insertInto('users')
    .values(
      users.map((id, i) => ({
        id,
        username: `p${i}`,
        is_anonymous: 1,
        is_verified: 0,
        created_at: now,
        updated_at: now,
      })),
    )
    .execute()

  const before = await aborts(cluster)
  const started = performance.now()
  let next = 0
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, worker) => {
      const db = handles[worker % writers]!
      for (let i = next++; i < SUBMITS; i = next++) {
        await submitScore(db, events, {
          boardKey: 'hot',
          userId: users[i]!,
          score: scores[i]!,
          validated: false,
          now: now + i,
        })
      }
    }),
  )
  const seconds = (performance.now() - started) / 1000
  const after = await aborts(cluster)

  // Every position from the tree, against the entries sorted (score, then reached first).
  const order = users.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b)
  const board = await reader
    .selectFrom('leaderboards')
    .select('id')
    .where('board_key', '=', 'hot')
    .executeTakeFirstOrThrow()
  let wrong = 0
  let totals = 0
  for (let place = 0; place < order.length; place++) {
    const i = order[place]!
    const read = await positionAndTotal(reader, board.id, 'all', {
      rank_score: -scores[i]!,
      reached_at: now + i,
      user_id: users[i]!,
    })
    if (read.position !== place + 1) wrong++
    if (read.total !== SUBMITS) totals++
  }
  t.equal(wrong, 0, `${writers} writer(s): every one of the ${SUBMITS} positions exact`)
  t.equal(totals, 0, `${writers} writer(s): the total read as ${SUBMITS} each time`)
  const levels = await sql<{ level: number; n: number | string }>`select level, sum(n) as n from leaderboard_counts
    where board_id = ${board.id} group by level order by level`.execute(reader)
  t.same(
    levels.rows.map((r) => Number(r.n)),
    Array(7).fill(SUBMITS),
    'each level of the tree counts every entry once',
  )
  return { perSecond: SUBMITS / seconds, cert: after.cert - before.cert, bf: after.bf - before.bf }
}

t.test(
  "one board's submits through one node, then over three",
  { skip: galeraMissing() ?? (process.env.TEST_MYSQL_URL ? undefined : 'TEST_MYSQL_URL is not set'), timeout: 240_000 },
  async (t) => {
    const cluster = await startGalera(t, NODES)
    const say = (what: string, run: Run) =>
      t.comment(
        `${what}: ${run.perSecond.toFixed(0)} submits/s, ${run.cert} certification failures, ${run.bf} brute-force aborts`,
      )
    const one = await submitRun(t, cluster, 1)
    say(`${SUBMITS} submits, ${CONCURRENCY} at once, one writer`, one)
    const three = await submitRun(t, cluster, NODES)
    say(`${SUBMITS} submits, ${CONCURRENCY} at once, ${NODES} writers`, three)
  },
)
