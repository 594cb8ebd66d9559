import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import autocannon from 'autocannon'
import { createMysqlDatabase, dropMysqlDatabase, mysqlSettings, onMysqlServer } from './mysql.js'
import { startPhpPeer, seedPhpRemoteConfig, PHP_WORKERS } from './php-peer.js'
import { assertPinned, BorrowedPins, type Pinning } from './pinning.js'
import {
  benchDatabaseName,
  cpuOf,
  databaseServerPids,
  freePort,
  leftByGoneBench,
  processTree,
  serverNodeFlags,
  startNode,
  type Server,
} from './processes.js'
import { freshPostgresDatabase, pinPostgres, postgresStackPids, postmasterPid, sampledCpu } from './postgres-stack.js'
import { dropPostgresDatabase } from './postgres.js'
import { gameFile } from '../db/games.js'
import {
  ADMIN_KEY,
  API_KEY,
  REMOTE_CONFIG,
  runScenario,
  scenarios,
  seed,
  type Flavour,
  type GamesLoad,
  type Result,
  type RunOptions,
  type Seeded,
} from './scenarios.js'

/**
 * The servers a bench run measures: Outpost on SQLite, MariaDB or PostgreSQL, the ceiling, the PHP peer, each
 * started on the server core when pinning is on (bench/pinning.ts) and checked to be there.
 */

export type Db = 'sqlite' | 'mysql' | 'postgres'

export interface BenchContext {
  /** This checkout (the bench's own files, results). */
  root: string
  /** The Outpost measured (DIR/dist/server.js). */
  serverDir: string
  phpDir: string
  /** Temp dir of the run: databases and logs, removed at the end. */
  workDir: string
  run: RunOptions
  users: number
  mysqlUrl: string
  /** The PostgreSQL server's maintenance database (`postgres://user@host:port/postgres`). */
  postgresUrl: string
  /** DB_POOL_SIZE of a MySQL or PostgreSQL run. */
  pool: number
  profile: boolean
  pinning: Pinning
  /** Appended to each Outpost's label: names the other build of an `--ab-server-dir` run. */
  labelSuffix?: string
  /** Games on each Outpost (`--ab-games`: the B side's); default 1. */
  games?: number
  /** Where the load of a run with several games goes (`--games-load`); default `spread`. */
  gamesLoad?: GamesLoad
  /** The wait between the seeding and the first run (`--settle`); none by default. */
  settleMs?: number
}

/** mariadbd or PostgreSQL pinned for their runs, their affinity given back after each (and on exit or ^C). */
let borrowed: BorrowedPins | undefined

/** The database server's side of an Outpost run: what its CPU adds, its processes, what to undo after. */
interface DatabaseSide {
  cpu?: () => number
  pids: () => number[]
  release: () => void
}

/**
 * MariaDB: mariadbd, a fixed pid, pinned and counted whole. PostgreSQL: the postmaster pinned (the
 * backends it forks for Outpost inherit the core) and its tree sampled (bench/postgres-stack.ts).
 */
function databaseSide(db: Db, core: number | null, mysqlUrl: string, name: string): DatabaseSide {
  if (db === 'sqlite') return { pids: () => [], release: () => {} }
  if (db === 'mysql') {
    const pids = databaseServerPids(Number(new URL(mysqlUrl).port || 3306))
    if (core !== null) {
      if (!pids.length) throw new Error('no mariadbd or mysqld process on this machine to pin and count')
      borrowed ??= new BorrowedPins()
      for (const pid of pids) borrowed.pin(pid, core)
    }
    return {
      cpu: () => pids.reduce((sum, pid) => sum + cpuOf(pid), 0),
      pids: () => pids,
      release: () => borrowed?.restore(),
    }
  }
  const postmaster = postmasterPid()
  // Unpinned, a server elsewhere is measured as MariaDB's is: Outpost's CPU alone.
  if (postmaster === null && core === null) return { pids: () => [], release: () => {} }
  if (postmaster === null) throw new Error('no PostgreSQL postmaster on this machine to pin and count')
  const unpin = core === null ? undefined : pinPostgres((borrowed ??= new BorrowedPins()), postmaster, name, core)
  const stack = () => postgresStackPids(postmaster, name)
  const sampled = sampledCpu(stack)
  return {
    cpu: sampled.cpuMs,
    pids: stack,
    release: () => {
      sampled.stop()
      unpin?.()
    },
  }
}

/**
 * A database of its own per server (benchDatabaseName()), dropped at the end: two benches on one
 * MariaDB (the machine is shared) would otherwise drop each other's tables mid-run.
 */
async function freshMysqlDatabase(ctx: BenchContext, name: string): Promise<Record<string, string>> {
  // Those of benches that were killed before they could drop theirs (their pid is gone).
  const rows = (await onMysqlServer(ctx.mysqlUrl, "SHOW DATABASES LIKE 'outpost\\_bench\\_%'")) as Array<
    Record<string, string>
  >
  for (const row of rows) {
    const stale = Object.values(row)[0]!
    if (leftByGoneBench(stale)) await dropMysqlDatabase(ctx.mysqlUrl, stale)
  }
  await dropMysqlDatabase(ctx.mysqlUrl, name)
  await createMysqlDatabase(ctx.mysqlUrl, name)
  return mysqlSettings(ctx.mysqlUrl, name, ctx.pool)
}

async function freshDatabase(ctx: BenchContext, db: Db, dir: string, name: string): Promise<Record<string, string>> {
  if (db === 'mysql') return freshMysqlDatabase(ctx, name)
  if (db === 'postgres') return freshPostgresDatabase(ctx.postgresUrl, ctx.pool, name)
  return { DB_DRIVER: 'sqlite', DB_PATH: join(dir, 'bench.db') }
}

async function dropDatabase(ctx: BenchContext, db: Db, name: string) {
  if (db === 'mysql') await dropMysqlDatabase(ctx.mysqlUrl, name)
  if (db === 'postgres') await dropPostgresDatabase(ctx.postgresUrl, name)
}

/** `outpost_db_statements_total` from the server's /metrics (loopback needs no token); null without it. */
async function statementsSent(url: string): Promise<number | null> {
  const res = await fetch(`${url}/metrics`)
  const text = await res.text()
  if (!res.ok) return null
  const match = /^outpost_db_statements_total(?:\{\})? (\S+)$/m.exec(text)
  return match ? Number(match[1]) : null
}

export interface Outpost {
  server: Server
  /** Stops the server, drops its MariaDB or PostgreSQL database and gives the server its affinity back. */
  stop: () => Promise<void>
  label: string
  dbEnv: Record<string, string>
  log: string
}

/** Outpost's process on a fresh database, on the server core when pinning is on. */
async function launchOutpost(
  ctx: BenchContext,
  db: Db,
  workers: string | undefined,
  extraEnv: Record<string, string>,
  database: DatabaseSide,
  name: string,
) {
  const core = ctx.pinning.serverCore
  const dir = mkdtempSync(join(ctx.workDir, `outpost-${db}-`))
  const dbEnv = await freshDatabase(ctx, db, dir, name)
  const port = await freePort()
  const env: Record<string, string> = {
    ...dbEnv,
    API_KEY,
    ADMIN_API_KEY: ADMIN_KEY,
    PORT: String(port),
    HOST: '127.0.0.1',
    RATE_LIMIT_ENABLED: 'false',
    LOG_LEVEL: 'warn',
    ...(workers === undefined ? {} : { WORKERS: workers }),
    ...extraEnv,
  }
  const log = join(dir, 'server.log')
  const nodeArgs = [
    ...serverNodeFlags(ctx.serverDir),
    ...(ctx.profile ? ['--cpu-prof', `--cpu-prof-dir=${join(ctx.root, 'bench/results/profiles')}`] : []),
  ]
  const server = await startNode(join(ctx.serverDir, 'dist/server.js'), [], {
    cwd: ctx.serverDir,
    env,
    port,
    logFile: log,
    nodeArgs,
    alsoCpu: database.cpu,
    core,
  })
  return { server, dbEnv, log }
}

/** Outpost on a fresh database; `workers` undefined leaves WORKERS unset (the server's default). */
export async function startOutpost(
  ctx: BenchContext,
  db: Db,
  workers: string | undefined,
  extraEnv: Record<string, string> = {},
): Promise<Outpost> {
  const core = ctx.pinning.serverCore
  const name = benchDatabaseName()
  const database = databaseSide(db, core, ctx.mysqlUrl, name)
  let started: { server: Server; dbEnv: Record<string, string>; log: string }
  try {
    started = await launchOutpost(ctx, db, workers, extraEnv, database, name)
  } catch (error) {
    database.release()
    await dropDatabase(ctx, db, name).catch(() => {})
    throw error
  }
  const { server, dbEnv, log } = started
  server.statements = () => statementsSent(server.url)
  // With several workers /health answers as soon as the first one listens: give the rest a moment.
  if (workers !== '1') await new Promise((resolve) => setTimeout(resolve, 1500))
  const stop = async () => {
    await server.stop()
    database.release()
    await dropDatabase(ctx, db, name)
  }
  try {
    assertPinned('outpost', [...server.children.flatMap((c) => processTree(c.pid!)), ...database.pids()], core)
  } catch (error) {
    await stop()
    throw error
  }
  const variant = Object.entries(extraEnv).map(([name, value]) => ` ${name}=${value}`)
  return {
    server,
    label: `outpost ${db} w=${workers ?? 'default'}${variant.join('')}${ctx.labelSuffix ?? ''}`,
    dbEnv,
    log,
    stop,
  }
}

export const tail = (file: string) => () => {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-5).join('\n').slice(0, 2000)
  } catch {
    return '(no log)'
  }
}

export async function measureCeiling(ctx: BenchContext, label = 'ceiling'): Promise<Result> {
  const port = await freePort()
  const ceiling = await startNode(join(ctx.root, 'dist/bench/ceiling.js'), [String(port), API_KEY], {
    cwd: ctx.root,
    env: {},
    port,
    logFile: join(ctx.workDir, 'ceiling.log'),
    core: ctx.pinning.serverCore,
  })
  try {
    const cpuBefore = ceiling.cpuMs()
    const run = await autocannon({ url: `${ceiling.url}/ceiling`, ...ctx.run, headers: { 'x-api-key': API_KEY } })
    process.stdout.write(`${label}: ${run.requests.average.toFixed(0)} rps, p99 ${run.latency.p99} ms\n`)
    return {
      server: label,
      scenario: 'ceiling',
      rps: run.requests.average,
      p50: run.latency.p50,
      p99: run.latency.p99,
      non2xx: run.non2xx,
      errors: run.errors + run.timeouts,
      ratio: null,
      cpuPerRequestMs: (ceiling.cpuMs() - cpuBefore) / Math.max(1, run.requests.total),
      peakRssMb: ceiling.peakRss() / 2 ** 20,
      processes: 1,
      requests: run.requests.total,
    }
  } finally {
    await ceiling.stop()
  }
}

/** What runs on a server after its scenarios, before it stops (the open-loop run of `--targets`). */
export type AfterRuns = (server: Server, label: string, seeded: Seeded, results: Result[]) => Promise<void>

/** Seeds a started Outpost with ctx.users players, in ctx.games games as ctx.gamesLoad deals them. */
export async function seedOutpost(ctx: BenchContext, outpost: Outpost): Promise<Seeded> {
  const games = ctx.games ?? 1
  const load = ctx.gamesLoad ?? 'spread'
  const where =
    games === 1 ? '' : load === 'one' ? ` in default, beside ${games - 1} other games` : ` over ${games} games`
  process.stdout.write(`${outpost.label}: seeding ${ctx.users} users${where}…\n`)
  return seed(outpost.server, 'outpost', ctx.users, games, load)
}

/** Seeds Outpost on `db` and runs `names` in order, then `after`. */
export async function benchOutpost(
  ctx: BenchContext,
  db: Db,
  workers: string | undefined,
  names: string[],
  ceilingRps: number | null,
  extraEnv: Record<string, string> = {},
  after?: AfterRuns,
) {
  const outpost = await startOutpost(ctx, db, workers, extraEnv)
  const results: Result[] = []
  try {
    const seeded = await seedOutpost(ctx, outpost)
    if (ctx.settleMs) {
      process.stdout.write(`${outpost.label}: ${ctx.settleMs / 1000} s without requests, so the unplayed games rest…\n`)
      await new Promise((resolve) => setTimeout(resolve, ctx.settleMs))
    }
    const all = scenarios(seeded, 'outpost')
    for (const name of names) {
      const scenario = all.find((s) => s.name === name)
      if (!scenario) throw new Error(`unknown scenario ${name}`)
      results.push(await runScenario(outpost.server, outpost.label, scenario, ctx.run, ceilingRps, tail(outpost.log)))
    }
    await after?.(outpost.server, outpost.label, seeded, results)
    if (db === 'sqlite') process.stdout.write(`database size: ${sqliteSize(outpost.dbEnv.DB_PATH!)}\n`)
  } catch (error) {
    // The temp dir goes at the end of the run: the server's own account of the failure goes with the error.
    ;(error as Error).message += `\nserver log tail (${outpost.label}):\n${tail(outpost.log)()}`
    throw error
  } finally {
    await outpost.stop()
  }
  return results
}

export const PHP_LABEL = `php w=${PHP_WORKERS}`
/** The PHP peer on MariaDB (mariadbd pinned and counted with it, as for Outpost's MariaDB runs). */
export const PHP_MYSQL_LABEL = `php mysql w=${PHP_WORKERS}`

export async function benchPhp(
  ctx: BenchContext,
  names: string[],
  ceilingRps: number | null,
  db: 'sqlite' | 'mysql' = 'sqlite',
) {
  const dir = mkdtempSync(join(ctx.workDir, 'php-'))
  const core = ctx.pinning.serverCore
  const name = benchDatabaseName()
  const database = databaseSide(db, core, ctx.mysqlUrl, name)
  const label = db === 'mysql' ? PHP_MYSQL_LABEL : PHP_LABEL
  let mysql: Record<string, string> | undefined
  let php: Awaited<ReturnType<typeof startPhpPeer>>
  try {
    mysql = db === 'mysql' ? await freshMysqlDatabase(ctx, name) : undefined
    php = await startPhpPeer({ sourceDir: ctx.phpDir, dir, port: await freePort(), apiKey: API_KEY, core, mysql })
  } catch (error) {
    database.release()
    if (mysql) await dropDatabase(ctx, db, name).catch(() => {})
    throw error
  }
  const server: Server = {
    ...php,
    cpuMs: () => php.cpuMs() + (database.cpu?.() ?? 0),
    ...(database.cpu ? { databaseCpuMs: database.cpu } : {}),
  }
  const results: Result[] = []
  try {
    assertPinned('nginx + php-fpm', [...php.children.flatMap((c) => processTree(c.pid!)), ...database.pids()], core)
    process.stdout.write(`${label}: seeding ${ctx.users} users…\n`)
    const flavour: Flavour = 'php'
    const seeded = await seed(server, flavour, ctx.users)
    await seedPhpRemoteConfig(php.dbPath, REMOTE_CONFIG, mysql)
    const all = scenarios(seeded, flavour)
    for (const name of names) {
      const scenario = all.find((s) => s.name === name)
      if (!scenario) throw new Error(`unknown scenario ${name}`)
      results.push(await runScenario(server, label, scenario, ctx.run, ceilingRps, tail(join(dir, 'php-fpm.log'))))
    }
  } finally {
    await php.stop()
    database.release()
    if (mysql) await dropDatabase(ctx, db, name)
  }
  return results
}

/** The size of a SQLite server's files: the default game's, and every other game's beside it. */
function sqliteSize(path: string): string {
  const games = dirname(gameFile(path, 'x'))
  const others = existsSync(games) ? readdirSync(games).filter((name) => name.endsWith('.db')) : []
  const bytes = others.reduce((sum, name) => sum + statSync(join(games, name)).size, statSync(path).size)
  return `${(bytes / 2 ** 20).toFixed(1)} MB${others.length ? ` (${others.length + 1} games' files)` : ''}`
}
