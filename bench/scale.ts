import { mkdirSync, statSync, writeFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import SQLite from 'better-sqlite3'
import { createConnection } from 'mysql2/promise'
import { sql } from 'kysely'
import pg from 'pg'
import { createDb, MIGRATION_QUERY_TIMEOUT_MS } from '../db/index.js'
import { loadConfig } from '../config.js'
import { rebuildCounts } from '../features/leaderboard/ranking.js'
import { maxTarget, type ScaleReadings, type Target } from './targets.js'

/**
 * `npm run bench -- --scale N`: the default board filled with N entries by bulk insert (not the API:
 * SQLite in transactions, MariaDB and PostgreSQL by multi-row INSERTs),
 * then sequential requests timed at the top, the middle and the bottom of the board. Scores come in
 * pairs (score = ⌊i/2⌋), so every position sits in a tie broken by user id, the hard case.
 */
export interface ScaleOptions {
  url: string
  apiKey: string
  dbEnv: Record<string, string>
  entries: number
  resultsDir: string
  /** The largest resident set of any one server process so far, in bytes. */
  peakRss: () => number
  /** How the server was pinned (bench/pinning.ts), written with the results. */
  pinning: string
}

const SAMPLES = 200
const ENGINE_NAMES: Record<string, string> = { sqlite: 'SQLite', mysql: 'MariaDB', postgres: 'PostgreSQL' }
/** Untimed requests of each kind first, so the numbers are a warm server's (V8 optimises hot code after a few hundred calls). */
const WARMUP = 100
const CHUNK = 5000

const userId = (i: number) => `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`
const scoreOf = (i: number) => Math.floor(i / 2)

async function fillSqlite(path: string, boardId: string, n: number, now: number) {
  const db = new SQLite(path)
  db.pragma('busy_timeout = 30000')
  const user = db.prepare(
    'insert into users (id, username, email, is_anonymous, is_verified, anonymous_token_hash, banned_at, ban_reason, created_at, updated_at) values (?, ?, null, 1, 0, null, null, null, ?, ?)',
  )
  const entry = db.prepare(
    "insert into leaderboard_entries (board_id, period, user_id, score, rank_score, reached_at, hidden, metadata, created_at) values (?, 'all', ?, ?, ?, ?, 0, null, ?)",
  )
  const fill = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      user.run(userId(i), `Scale ${i}`, now, now)
      entry.run(boardId, userId(i), scoreOf(i), -scoreOf(i), now, now)
    }
  })
  for (let from = 0; from < n; from += 100_000) fill(from, Math.min(n, from + 100_000))
  db.close()
}

async function fillMysql(env: Record<string, string>, boardId: string, n: number, now: number) {
  const conn = await createConnection({
    host: env.DB_HOST,
    port: Number(env.DB_PORT),
    user: env.DB_USER,
    password: env.DB_PASS,
    database: env.DB_NAME,
  })
  for (let from = 0; from < n; from += CHUNK) {
    const to = Math.min(n, from + CHUNK)
    const users = []
    const entries = []
    for (let i = from; i < to; i++) {
      users.push([userId(i), `Scale ${i}`, null, 1, 0, null, null, null, now, now])
      entries.push([boardId, 'all', userId(i), scoreOf(i), -scoreOf(i), now, 0, null, now])
    }
    await conn.query(
      'insert into users (id, username, email, is_anonymous, is_verified, anonymous_token_hash, banned_at, ban_reason, created_at, updated_at) values ?',
      [users],
    )
    await conn.query(
      'insert into leaderboard_entries (board_id, period, user_id, score, rank_score, reached_at, hidden, metadata, created_at) values ?',
      [entries],
    )
  }
  await conn.end()
}

async function fillPostgres(env: Record<string, string>, boardId: string, n: number, now: number) {
  const client = new pg.Client({
    host: env.DB_HOST,
    port: Number(env.DB_PORT),
    user: env.DB_USER,
    password: env.DB_PASS,
    database: env.DB_NAME,
  })
  await client.connect()
  // Rows of one INSERT: its parameters stay below PostgreSQL's 65,535.
  const rows = (count: number, width: number) =>
    Array.from(
      { length: count },
      (_, r) => `(${Array.from({ length: width }, (_, c) => `$${r * width + c + 1}`).join(', ')})`,
    ).join(', ')
  try {
    for (let from = 0; from < n; from += CHUNK) {
      const to = Math.min(n, from + CHUNK)
      const users: unknown[] = []
      const entries: unknown[] = []
      for (let i = from; i < to; i++) {
        users.push(userId(i), `Scale ${i}`, null, 1, 0, null, null, null, now, now)
        entries.push(boardId, 'all', userId(i), scoreOf(i), -scoreOf(i), now, 0, null, now)
      }
      await client.query(
        `insert into users (id, username, email, is_anonymous, is_verified, anonymous_token_hash, banned_at, ban_reason, created_at, updated_at) values ${rows(to - from, 10)}`,
        users,
      )
      await client.query(
        `insert into leaderboard_entries (board_id, period, user_id, score, rank_score, reached_at, hidden, metadata, created_at) values ${rows(to - from, 9)}`,
        entries,
      )
    }
  } finally {
    await client.end()
  }
}

/** The database's size on disk, in MB. */
async function databaseSizeMb(db: ReturnType<typeof createDb>, driver: string, path: string): Promise<number> {
  if (driver === 'sqlite')
    return [path, `${path}-wal`].filter((f) => existsSync(f)).reduce((sum, f) => sum + statSync(f).size, 0) / 2 ** 20
  const size =
    driver === 'postgres'
      ? await sql<{ bytes: number }>`select pg_database_size(current_database()) as bytes`.execute(db)
      : await sql<{
          bytes: number
        }>`select sum(data_length + index_length) as bytes from information_schema.TABLES where TABLE_SCHEMA = database()`.execute(
          db,
        )
  return Number(size.rows[0]?.bytes ?? 0) / 2 ** 20
}

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
  return { median: Number(at(0.5).toFixed(2)), p99: Number(at(0.99).toFixed(2)) }
}

async function timed(times: number, request: (i: number) => Promise<Response>) {
  const samples: number[] = []
  for (let i = 0; i < times; i++) {
    const start = performance.now()
    const res = await request(i)
    await res.arrayBuffer()
    if (!res.ok) throw new Error(`request failed: ${res.status}`)
    samples.push(performance.now() - start)
  }
  return stats(samples)
}

/**
 * The performance targets for a million-entry board: SQLite rank and around median ≤ 2 ms and p99 ≤ 10 ms,
 * submit p99 ≤ 10 ms; MariaDB and PostgreSQL rank and around median ≤ 5 ms.
 */
function scaleTargets(driver: string, results: Record<string, { median: number; p99: number }>): Target[] {
  const targets: Target[] = []
  const reads = Object.keys(results).filter((name) => /^(rank|around) /.test(name))
  const engine = ENGINE_NAMES[driver] ?? driver
  for (const name of reads)
    targets.push(maxTarget(`${engine}: ${name} median`, results[name]!.median, driver === 'sqlite' ? 2 : 5, 'ms'))
  if (driver === 'sqlite') {
    for (const name of reads) targets.push(maxTarget(`SQLite: ${name} p99`, results[name]!.p99, 10, 'ms'))
    const submit = results['submit bottom→middle']
    targets.push(maxTarget('SQLite: submit bottom→middle p99', submit?.p99, 10, 'ms'))
  }
  return targets
}

export interface ScaleRun {
  targets: Target[]
  results: ScaleReadings
  peakRssMb: number
  fillSeconds: number
  /** Best scores the timed submits set that the board did not keep. */
  lost: number
}

export async function runScale(options: ScaleOptions): Promise<ScaleRun> {
  const { url, apiKey, dbEnv, entries: n } = options
  const config = loadConfig({ API_KEY: apiKey, ...dbEnv })
  // Filling and recounting a board of millions is no request: no per-query bound.
  const db = createDb({ ...config, DB_QUERY_TIMEOUT_MS: MIGRATION_QUERY_TIMEOUT_MS })
  const board = await db
    .selectFrom('leaderboards')
    .select('id')
    .where('board_key', '=', 'default')
    .executeTakeFirstOrThrow()
  const now = Date.now() - 60_000

  process.stdout.write(`filling the default board with ${n} entries…\n`)
  const fillStart = performance.now()
  if (config.DB_DRIVER === 'sqlite') await fillSqlite(config.DB_PATH, board.id, n, now)
  else if (config.DB_DRIVER === 'postgres') await fillPostgres(dbEnv, board.id, n, now)
  else await fillMysql(dbEnv, board.id, n, now)
  const insertedMs = performance.now() - fillStart
  await rebuildCounts(db, board.id)
  // A million rows bulk-inserted at once: PostgreSQL plans from statistics autovacuum would gather
  // only later, as a production database has them.
  if (config.DB_DRIVER === 'postgres') await sql`analyze`.execute(db)
  const fillMs = performance.now() - fillStart
  const sizeMb = await databaseSizeMb(db, config.DB_DRIVER, config.DB_PATH)

  // The SQLite fill blocks this process's event loop for longer than the server's keep-alive timeout,
  // so fetch never saw the server close its pooled connection and the first request on it fails
  // ("other side closed"). One retried request clears the stale connection.
  await fetch(`${url}/health`)
    .catch(() => fetch(`${url}/health`))
    .then((res) => res.arrayBuffer())

  const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' }
  const get = (path: string) => fetch(`${url}/api/v1/app${path}`, { headers })
  // The best score belongs to the highest index; desc board, so user n-1 is first and user 0 last.
  const positions = { top: n - 1, middle: Math.floor(n / 2), bottom: 0 }
  const results: Record<string, { median: number; p99: number }> = {}
  // Warm-up at other players: reads spread over the board, and submits of a score below the stored
  // one (the `best` board keeps it), which run the whole submit transaction without moving anyone.
  const other = (k: number) => 1000 + Math.floor((k * (n - 2000)) / WARMUP)
  await timed(WARMUP, (k) => get(`/leaderboard/rank?userId=${userId(other(k))}`))
  await timed(WARMUP, (k) => get(`/leaderboard/around?userId=${userId(other(k))}&range=10`))
  await timed(WARMUP, (k) => get(`/leaderboard/top?limit=${1 + (k % 100)}`))
  await timed(WARMUP, (k) =>
    fetch(`${url}/api/v1/app/leaderboard/submit`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ userId: userId(other(k)), score: 0 }),
    }),
  )
  // The floor: the same sequential round trip to a route that does almost nothing (one `select 1`).
  // On this 2-core VM a loopback request between two processes takes about a millisecond by itself.
  results['health (floor)'] = await timed(SAMPLES, () => fetch(`${url}/health`))
  for (const [name, i] of Object.entries(positions)) {
    const check = (await (await get(`/leaderboard/rank?userId=${userId(i)}`)).json()) as { position: number }
    process.stdout.write(`${name}: user ${i} is at position ${check.position}\n`)
    results[`rank ${name}`] = await timed(SAMPLES, () => get(`/leaderboard/rank?userId=${userId(i)}`))
    results[`around ${name}`] = await timed(SAMPLES, () => get(`/leaderboard/around?userId=${userId(i)}&range=10`))
  }
  results['top 100'] = await timed(SAMPLES, () => get('/leaderboard/top?limit=100'))
  // Bottom players jump to the middle: a real move through the count tree each time.
  results['submit bottom→middle'] = await timed(SAMPLES, (k) =>
    fetch(`${url}/api/v1/app/leaderboard/submit`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ userId: userId(2 * k + 1), score: scoreOf(positions.middle) + k }),
    }),
  )
  // Each of those players' best must now be the score submitted: a lower one is a lost best score.
  let lost = 0
  for (let k = 0; k < SAMPLES; k++) {
    const res = (await (await get(`/leaderboard/rank?userId=${userId(2 * k + 1)}`)).json()) as { score: number }
    if (Number(res.score) < scoreOf(positions.middle) + k) lost++
  }
  await db.destroy()

  process.stdout.write(
    `\nscale: ${n} entries on ${config.DB_DRIVER}; fill ${(fillMs / 1000).toFixed(1)} s (rows ${(insertedMs / 1000).toFixed(1)} s, counts ${((fillMs - insertedMs) / 1000).toFixed(1)} s); database ${sizeMb.toFixed(0)} MB\n`,
  )
  process.stdout.write(`${SAMPLES} submitted best scores checked, ${lost} lost\n`)
  process.stdout.write('| request | median | p99 |\n|---|---|---|\n')
  for (const [name, r] of Object.entries(results)) process.stdout.write(`| ${name} | ${r.median} ms | ${r.p99} ms |\n`)
  mkdirSync(options.resultsDir, { recursive: true })
  const file = join(
    options.resultsDir,
    `scale-${config.DB_DRIVER}-${n}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`,
  )
  const targets = scaleTargets(config.DB_DRIVER, results)
  const peakRssMb = options.peakRss() / 2 ** 20
  targets.push(maxTarget('submitted best scores lost', lost, 0, 'scores'))
  targets.push(maxTarget('peak RSS per Outpost process', peakRssMb, 250, 'MB'))
  writeFileSync(
    file,
    JSON.stringify(
      {
        entries: n,
        driver: config.DB_DRIVER,
        pinning: options.pinning,
        fillSeconds: fillMs / 1000,
        sizeMb,
        results,
        lost,
        targets,
      },
      null,
      2,
    ),
  )
  process.stdout.write(`written: ${file}\n`)
  return { targets, results, peakRssMb, fillSeconds: fillMs / 1000, lost }
}
