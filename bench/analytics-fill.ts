// `node dist/bench/analytics-fill.js --db sqlite|mysql --players N [--days 90]`: fills a fresh database
// with N players signed up over the last `days` days, a tenth of the players active each day, crash
// sessions (2 % crashed, one report each) on three app versions, submits on two boards and a board of
// N/10 entries; builds the daily rollups as the job does (timed), then times each analytics route
// (contract §12) in process, 50 calls each, and prints the median and the p99. Multi-row INSERTs in
// transactions; every loop is bounded by N and days.
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import type { Insertable } from 'kysely'
import { createDb, MIGRATION_QUERY_TIMEOUT_MS } from '../db/index.js'
import { migrateToLatest } from '../db/migrate.js'
import { MIGRATIONS } from '../app.js'
import type { Database, Db } from '../db/types.js'
import { loadConfig } from '../config.js'
import { buildApp } from '../app.js'
import { rebuildCounts } from '../features/leaderboard/ranking.js'
import { runRollup } from '../features/analytics/rollup.js'
import { createMysqlDatabase, dropMysqlDatabase, mysqlSettings } from './mysql.js'

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    players: { type: 'string', default: '100000' },
    days: { type: 'string', default: '90' },
    calls: { type: 'string', default: '50' },
    'mysql-url': { type: 'string', default: process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test' },
  },
})
const PLAYERS = Number(args.players)
const DAYS = Number(args.days)
const CALLS = Number(args.calls)
const DAY = 86_400_000
const API_KEY = 'analytics-fill-api-key-0123'
const ADMIN_KEY = 'analytics-fill-admin-key-0123'
const VERSIONS = ['1.4.0', '1.4.1', '1.4.2']

const log = (text: string) => process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${text}\n`)

async function insertAll<T extends keyof Database & string>(db: Db, table: T, rows: Iterable<Insertable<Database[T]>>) {
  let batch: Insertable<Database[T]>[] = []
  let pending: Array<Insertable<Database[T]>[]> = []
  const flush = async () => {
    const work = pending
    pending = []
    await db.transaction().execute(async (trx) => {
      for (const chunk of work)
        await trx
          .insertInto(table)
          .values(chunk as never)
          .execute()
    })
  }
  let n = 0
  for (const row of rows) {
    batch.push(row)
    if (batch.length === 500) {
      pending.push(batch)
      batch = []
      if (pending.length === 40) await flush()
    }
    n++
  }
  if (batch.length) pending.push(batch)
  if (pending.length) await flush()
  return n
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-analytics-fill-'))
  const mysqlName = `outpost_fill_${process.pid}`
  const dbEnv =
    args.db === 'mysql'
      ? (await createMysqlDatabase(args['mysql-url']!, mysqlName), mysqlSettings(args['mysql-url']!, mysqlName, 8))
      : { DB_DRIVER: 'sqlite', DB_PATH: join(dir, 'fill.db') }
  const config = loadConfig({
    API_KEY,
    ADMIN_API_KEY: ADMIN_KEY,
    LOG_LEVEL: 'error',
    RATE_LIMIT_ENABLED: 'false',
    ADMIN_RATE_LIMIT_PER_SECOND: '1000000',
    ...dbEnv,
  })
  const db = createDb({ ...config, DB_QUERY_TIMEOUT_MS: MIGRATION_QUERY_TIMEOUT_MS })
  try {
    await migrateToLatest(db, MIGRATIONS)
    const now = Date.now()
    const today = Math.floor(now / DAY)
    const first = today - DAYS + 1
    const started = Date.now()
    const signupDay = (i: number) => first + Math.floor((i * DAYS) / PLAYERS)
    const ids = Array.from({ length: PLAYERS }, () => randomUUID())
    log(`${args.db}: ${PLAYERS} players over ${DAYS} days`)
    await insertAll(
      db,
      'users',
      (function* () {
        for (let i = 0; i < PLAYERS; i++) {
          const at = signupDay(i) * DAY + (i % 86_000) * 1000
          yield {
            id: ids[i]!,
            username: `Player-${i}`,
            email: null,
            is_anonymous: 1 as const,
            is_verified: 0 as const,
            anonymous_token_hash: null,
            banned_at: null,
            ban_reason: null,
            created_at: at,
            updated_at: at,
            password_hash: null,
            email_key: null,
          }
        }
      })(),
    )
    log('activity')
    const activity = await insertAll(
      db,
      'player_activity',
      (function* () {
        for (let day = first; day <= today; day++) {
          for (let i = day % 10; i < PLAYERS; i += 10) if (signupDay(i) <= day) yield { day, user_id: ids[i]! }
        }
      })(),
    )
    log(`${activity} activity rows; crash groups, sessions and reports`)
    const groups = VERSIONS.map((v) => ({
      id: randomUUID(),
      fingerprint: `fp-${v}`,
      type: 'CRASH',
      message: `NullReference in ${v}`,
      status: 'OPEN',
      resolved_in_version: null,
      resolved_version_key: null,
      occurrences: 0,
      first_seen: first * DAY,
      last_seen: now,
      last_app_version: v,
      updated_at: now,
    }))
    await insertAll(db, 'crash_groups', groups)
    const perDay = Math.max(1, Math.floor(PLAYERS / 50))
    let crashed = 0
    const sessions = await insertAll(
      db,
      'crash_sessions',
      (function* () {
        for (let day = first; day <= today; day++) {
          for (let s = 0; s < perDay; s++) {
            const at = day * DAY + Math.floor((s * DAY) / perDay)
            if (at > now) break
            const isCrashed = s % 50 === 0
            if (isCrashed) crashed++
            yield {
              session_id: `d${day}-s${s}`,
              app_version: VERSIONS[s % 3]!,
              platform: 'android',
              user_id: '',
              linked_user_id: null,
              crashed: isCrashed ? (1 as const) : (0 as const),
              created_at: at,
              crashed_at: isCrashed ? at : null,
            }
          }
        }
      })(),
    )
    await insertAll(
      db,
      'crash_reports',
      (function* () {
        for (let day = first; day <= today; day++) {
          for (let s = 0; s < perDay; s += 50) {
            const at = day * DAY + Math.floor((s * DAY) / perDay)
            if (at > now) break
            const version = s % 3
            yield {
              id: randomUUID(),
              group_id: groups[version]!.id,
              session_id: `d${day}-s${s}`,
              type: 'CRASH',
              message: 'NullReference',
              stack_trace: '',
              fingerprint: groups[version]!.fingerprint,
              app_version: VERSIONS[version]!,
              sdk_version: '',
              platform: 'android',
              os: '',
              device_model: '',
              device_memory_mb: null,
              user_id: '',
              linked_user_id: null,
              breadcrumbs: '[]',
              custom_keys: '{}',
              truncated: 0 as const,
              created_at: at,
            }
          }
        }
      })(),
    )
    log(`${sessions} sessions, ${crashed} crashed; submits and a board of ${Math.floor(PLAYERS / 10)} entries`)
    const board = await db
      .selectFrom('leaderboards')
      .selectAll()
      .where('board_key', '=', 'default')
      .executeTakeFirstOrThrow()
    await insertAll(
      db,
      'leaderboard_entries',
      (function* () {
        for (let i = 0; i < PLAYERS; i += 10) {
          const score = (i * 7919) % 100_000
          yield {
            board_id: board.id,
            period: 'all',
            user_id: ids[i]!,
            score,
            rank_score: board.sort_order === 'desc' ? -score : score,
            reached_at: now,
            hidden: 0 as const,
            metadata: null,
            created_at: now,
          }
        }
      })(),
    )
    await rebuildCounts(db, board.id)
    // Submits are counted as they happen (analytics/activity.ts): their rows are what those counts make.
    await insertAll(
      db,
      'analytics_daily',
      (function* () {
        for (let day = first; day <= today; day++) {
          const n = Math.floor(PLAYERS / 20)
          yield { metric: 'submits', dimension: '', day, value: n }
          yield { metric: 'submits@board', dimension: 'default', day, value: n }
        }
      })(),
    )
    log(`filled in ${((Date.now() - started) / 1000).toFixed(1)} s; building the rollups`)
    const rollupStart = Date.now()
    let runs = 0
    for (;;) {
      const t0 = Date.now()
      const { built } = await runRollup(db, now)
      runs++
      log(`rollup run ${runs}: ${built.length} past days in ${Date.now() - t0} ms`)
      if (built.length === 0 || runs > 10) break
    }
    const again = Date.now()
    await runRollup(db, now)
    log(
      `rollups built in ${((again - rollupStart) / 1000).toFixed(1)} s; a later run (today only) ${Date.now() - again} ms`,
    )
    await measure(config, db)
  } finally {
    await db.destroy()
    if (args.db === 'mysql') await dropMysqlDatabase(args['mysql-url']!, mysqlName)
    rmSync(dir, { recursive: true, force: true })
  }
}

async function measure(config: ReturnType<typeof loadConfig>, db: Db) {
  const app = await buildApp({ config: { ...config, MIGRATE_ON_START: false }, db })
  await app.ready()
  await app.jobs.stop()
  const routes = [
    '/api/v1/admin/analytics/counts',
    '/api/v1/admin/analytics/daily?from=FROM&to=TO',
    '/api/v1/admin/analytics/daily?from=FROM&to=TO&appVersion=1.4.1&leaderboardKey=default',
    '/api/v1/admin/analytics/retention?from=FROM&to=TO',
    '/api/v1/admin/leaderboards/default/histogram?buckets=20',
    '/api/v1/admin/leaderboards/default/histogram?buckets=100',
  ]
  const today = new Date().toISOString().slice(0, 10)
  const from = new Date(Date.now() - (DAYS - 1) * DAY).toISOString().slice(0, 10)
  for (const route of routes) {
    const url = route.replace('FROM', from).replace('TO', today)
    const times: number[] = []
    for (let i = 0; i < CALLS + 3; i++) {
      const t0 = process.hrtime.bigint()
      const res = await app.inject({ method: 'GET', url, headers: { 'x-admin-key': ADMIN_KEY } })
      const ms = Number(process.hrtime.bigint() - t0) / 1e6
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`)
      if (i >= 3) times.push(ms)
    }
    times.sort((a, b) => a - b)
    const median = times[Math.floor(times.length / 2)]!
    const p99 = times[Math.min(times.length - 1, Math.ceil(times.length * 0.99) - 1)]!
    log(`${args.db} ${url.replace(/^\/api\/v1\/admin/, '')}: median ${median.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`)
  }
  await app.close()
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`)
  process.exit(1)
})
