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
 * One board's score submits on a 3-node Galera cluster: all through one node (a single writer), then
 * spread over the three nodes (three writers). Galera certifies two transactions from different
 * nodes as conflicting when they change the same row, and every first entry adds 1 to the count
 * tree's rows near the root (leaderboard_counts, features/leaderboard/ranking.ts). Each node writes
 * count rows of its own slot (db/mysql-session.ts); the run that sets every connection's slot to 0,
 * as before migration 0161, shows what the slots save (numbers in docs/performance.md,
 * "Hot counters on a Galera cluster"). Told for each run: submits per second, the certification
 * failures and brute-force aborts of the cluster (each a transaction retried), and that every
 * position and the total are exact afterwards. COUNTER_RUNS=n repeats the three runs.
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

interface Setup {
  name: string
  users: string[]
  events: EventHub
}

/** A database on the cluster with the latest migrations and SUBMITS players. */
async function setUp(cluster: GaleraCluster): Promise<Setup> {
  const name = `outpost_c_${randomBytes(5).toString('hex')}`
  await cluster.query(0, `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`)
  const db = createDb(testConfig(mysqlSettings(cluster.url(0), name, 1)))
  try {
    await migrateToLatest(db, MIGRATIONS)
    const now = Date.now()
    const users = Array.from({ length: SUBMITS }, () => randomUUID())
    await db
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
    return { name, users, events: new EventHub() }
  } finally {
    await db.destroy()
  }
}

/**
 * Every player's first score on a new board, CONCURRENCY at once, each worker on a connection of its
 * own on node (worker mod `writers`); `slots` false sets every connection's count slot to 0.
 */
async function submitRun(t: Test, cluster: GaleraCluster, setup: Setup, writers: number, slots: boolean) {
  const open = (node: number) => createDb(testConfig(mysqlSettings(cluster.url(node), setup.name, 1)))
  const handles: Db[] = Array.from({ length: CONCURRENCY }, (_, worker) => open(worker % writers))
  const reader = open(NODES - 1)
  try {
    for (const db of handles) if (!slots) await sql`set @outpost_count_slot = 0`.execute(db)
    const { users, events } = setup
    const now = Date.now()
    const board = `hot-${writers}-${slots}-${now}`
    await putBoard(handles[0]!, events, board, { maxScore: 10_000_000 }, now)
    const scores = users.map(() => Math.floor(Math.random() * 1_000_000))
    const before = await aborts(cluster)
    const started = performance.now()
    let next = 0
    await Promise.all(
      handles.map(async (db) => {
        for (let i = next++; i < SUBMITS; i = next++) {
          await submitScore(db, events, {
            boardKey: board,
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
    const { id } = await reader
      .selectFrom('leaderboards')
      .select('id')
      .where('board_key', '=', board)
      .executeTakeFirstOrThrow()
    let wrong = 0
    let totals = 0
    for (let place = 0; place < order.length; place++) {
      const i = order[place]!
      const read = await positionAndTotal(reader, id, 'all', {
        rank_score: -scores[i]!,
        reached_at: now + i,
        user_id: users[i]!,
      })
      if (read.position !== place + 1) wrong++
      if (read.total !== SUBMITS) totals++
    }
    const what = `${writers} writer(s)${slots ? '' : ', slot 0'}`
    t.equal(wrong, 0, `${what}: every one of the ${SUBMITS} positions exact`)
    t.equal(totals, 0, `${what}: the total read as ${SUBMITS} each time`)
    const levels = await sql<{ n: number | string }>`select sum(n) as n from leaderboard_counts
      where board_id = ${id} group by level order by level`.execute(reader)
    t.same(
      levels.rows.map((r) => Number(r.n)),
      Array(7).fill(SUBMITS),
      `${what}: each level of the tree counts every entry once`,
    )
    const rows = await sql<{ slots: number | string }>`select count(distinct slot) as slots from leaderboard_counts
      where board_id = ${id}`.execute(reader)
    return {
      what,
      perSecond: SUBMITS / seconds,
      cert: after.cert - before.cert,
      bf: after.bf - before.bf,
      slots: Number(rows.rows[0]!.slots),
    }
  } finally {
    for (const db of [...handles, reader]) await db.destroy()
  }
}

t.test(
  "one board's submits through one node, then over three",
  { skip: galeraMissing() ?? (process.env.TEST_MYSQL_URL ? undefined : 'TEST_MYSQL_URL is not set'), timeout: 240_000 },
  async (t) => {
    const cluster = await startGalera(t, NODES)
    const setup = await setUp(cluster)
    const runs = Number(process.env.COUNTER_RUNS ?? 1)
    for (let run = 1; run <= runs; run++) {
      for (const [writers, slots] of [
        [1, true],
        [NODES, false],
        [NODES, true],
      ] as const) {
        const r = await submitRun(t, cluster, setup, writers, slots)
        t.comment(
          `${SUBMITS} submits, ${CONCURRENCY} at once, ${r.what}: ${r.perSecond.toFixed(0)} submits/s, ` +
            `${r.cert} certification failures, ${r.bf} brute-force aborts, count rows in ${r.slots} slot(s)`,
        )
        if (writers === NODES) t.equal(r.slots, slots ? NODES : 1, `${r.what}: a slot per writing node`)
        if (writers === NODES && slots) t.equal(r.cert, 0, `${r.what}: no certification failure`)
      }
    }
  },
)
