import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { decidePinning, pinAll, tasksetPath, usableCores } from './pinning.js'
import {
  comparisons,
  engineCosts,
  meta,
  printComparisons,
  printEngineCosts,
  printResults,
  writeJson,
} from './report.js'
import { runTargets, scaleOn } from './run-targets.js'
import { benchRounds, printRounds, type RoundRatios } from './rounds.js'
import { SCENARIO_NAMES, type GamesLoad, type Result } from './scenarios.js'
import { benchOutpost, benchPhp, measureCeiling, type BenchContext, type Db } from './servers.js'
import { printTargets } from './targets.js'
import { REST_AFTER_MS } from '../platform/jobs/runner.js'

/**
 * `npm run bench`: Outpost in a child process (rate limit off), seeded through its API, then each
 * scenario under autocannon, beside a ceiling server measured in the same run, and optionally beside
 * the PHP server it replaces. Per core by default: every server on core 0, this process (the load
 * generator) on core 1 (bench/pinning.ts). Prints one table and writes it as JSON under
 * bench/results/. `--targets` runs what the performance targets need and judges them. Every loop
 * here is bounded in time and count.
 */

const USAGE = `usage: npm run bench -- [options]
  --db sqlite|mysql|postgres|both|all
                           database(s) for Outpost (default sqlite); mysql and postgres use a fresh
                           database outpost_bench_<pid>_<n> at --mysql-url / --postgres-url, dropped at
                           the end; both runs the scenarios on sqlite and mysql, all on the three, and
                           prints the ratios and each engine's CPU and statements per request
  --per-core               pin (the default where taskset exists and 2 cores are usable; with the
                           flag, fail rather than run unpinned): each server and everything it runs
                           (Outpost's workers and threads; nginx, php-fpm and their workers; for
                           mysql the machine's mariadbd, for postgres its postmaster and the
                           backends it forks for Outpost, affinity given back at the end) on
                           core 0, the bench and its load generator on core 1
  --no-pin                 do not pin: servers and load share the cores
  --workers N              WORKERS for Outpost (default: not set, the server's own default; with
                           --targets 1, one worker per core)
  --peer php, --php        also run the PHP server side by side (docs/performance.md)
  --php-dir DIR            the PHP server's source (default \$PHP_SERVER_DIR or
                           ../shared/peers/horizon-simple-server)
  --server-dir DIR         run the Outpost built in DIR (DIR/dist/server.js; default this checkout)
  --scenarios a,b          scenarios to run (default all: health, config-all, signup, lb-submit,
                           lb-top, lb-rank, lb-around, save, load, mixed); the PHP peer runs
                           mixed, lb-submit and save unless --scenarios names others
  --duration S             seconds per scenario (default 10; 8 with --targets)
  --connections N          autocannon connections (default 32)
  --pool N                 DB_POOL_SIZE of a MySQL or PostgreSQL run (default 16)
  --users N                players seeded on every server (default 1000)
  --targets                run everything the per-core targets need (the ceiling; Outpost on SQLite,
                           MariaDB and PostgreSQL, each with an open-loop run at half its max rate;
                           the PHP server on MariaDB; the filled boards), print them with ✓/✗/—
  --scale-entries N        with --targets: entries of the filled-board runs (default 1000000, which
                           takes several minutes per database; 0 skips them)
  --scale N                fill the default board with N entries, time single requests (with --db
                           sqlite, mysql or postgres)
  --mysql-url URL          default \$BENCH_MYSQL_URL or mysql://root@127.0.0.1:3306/test
  --postgres-url URL       the server's maintenance database: default \$BENCH_POSTGRES_URL or
                           postgres://postgres@127.0.0.1:5432/postgres
  --ab NAME=VALUE          A/B in one run: each database's scenarios run on a server as configured,
                           then on one with the setting NAME=VALUE (e.g. ANALYTICS_ACTIVITY=false),
                           and the two are printed side by side
  --ab-games N             A/B in one run: each database's scenarios on a server with one game, then on
                           one with N games (N-1 made through the admin API, each with its key and
                           remote config; the players dealt out over the games, every request sent
                           with its player's game's key)
  --games-load spread|one  with --ab-games: spread (the default) deals the players out over the N
                           games; one keeps them all in default, the N-1 other games holding a
                           few players each and no load: what hosting N games costs one game
  --settle S               with --ab-games: seconds both servers wait after the seeding before their
                           runs (default 90), so that the games the load leaves alone are at rest, as
                           on a server where nobody plays them (their background work looked at once
                           every 10 min, their outbox polls at their longest wait); 0 runs at once
  --rounds R               with an A/B (--ab, --ab-games, --ab-server-dir): both servers up at once,
                           each scenario run on A and B back to back R times (1–20), the order
                           swapped every round; each side's median round in the table and the
                           median of the rounds' ratios printed (default 1: A's runs, then B's)
  --ab-server-dir DIR      A/B of two builds in one run: each database's scenarios on this build
                           (or --server-dir), then on the one built in DIR (DIR/dist/server.js)
  --profile                write a V8 CPU profile of the server to bench/results/profiles
                           (node dist/bench/profile-summary.js FILE sums its self time by package)
  --help                   this text
`

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    'per-core': { type: 'boolean', default: false },
    'no-pin': { type: 'boolean', default: false },
    workers: { type: 'string' },
    peer: { type: 'string' },
    php: { type: 'boolean', default: false },
    'php-dir': { type: 'string' },
    'server-dir': { type: 'string' },
    duration: { type: 'string' },
    connections: { type: 'string', default: '32' },
    pool: { type: 'string', default: '16' },
    users: { type: 'string', default: '1000' },
    scenarios: { type: 'string', default: '' },
    targets: { type: 'boolean', default: false },
    'scale-entries': { type: 'string', default: '1000000' },
    scale: { type: 'string', default: '' },
    'mysql-url': { type: 'string', default: process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test' },
    'postgres-url': {
      type: 'string',
      default: process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    },
    profile: { type: 'boolean', default: false },
    ab: { type: 'string' },
    'ab-games': { type: 'string' },
    'games-load': { type: 'string' },
    settle: { type: 'string' },
    rounds: { type: 'string' },
    'ab-server-dir': { type: 'string' },
    help: { type: 'boolean', default: false },
  },
})
if (args.help) {
  process.stdout.write(USAGE)
  process.exit(0)
}
if (args.peer !== undefined && args.peer !== 'php') throw new Error(`unknown peer ${args.peer} (only php)`)
/** What `--db` names: `both` is SQLite and MariaDB (as before PostgreSQL), `all` the three. */
const DB_CHOICES: Record<string, Db[]> = {
  sqlite: ['sqlite'],
  mysql: ['mysql'],
  postgres: ['postgres'],
  both: ['sqlite', 'mysql'],
  all: ['sqlite', 'mysql', 'postgres'],
}
const dbs: Db[] = DB_CHOICES[args.db!] ?? []
if (!dbs.length) throw new Error(`--db is ${Object.keys(DB_CHOICES).join(', ')}, not ${args.db}`)
if (args['per-core'] && args['no-pin']) throw new Error('--per-core and --no-pin contradict each other: pick one')
const scaleEntries = Number(args['scale-entries'])
if (!Number.isInteger(scaleEntries) || scaleEntries < 0)
  throw new Error(`--scale-entries takes a whole number ≥ 0, not ${args['scale-entries']}`)

const root = fileURLToPath(new URL('../../', import.meta.url))
// Before this process is pinned: afterwards it may use one core.
const pinning = decidePinning(args['no-pin'] ? 'off' : args['per-core'] ? 'on' : 'auto', usableCores(), tasksetPath())
// Every thread of this process (libuv's pool, V8's) on the load core; threads started later inherit it.
if (pinning.benchCore !== null) pinAll(process.pid, pinning.benchCore)
process.stdout.write(`${pinning.note}\n`)

const workDir = mkdtempSync(join(tmpdir(), 'outpost-bench-'))
// Also on ^C: the servers' databases and logs in it are of no use after the run.
process.once('exit', () => rmSync(workDir, { recursive: true, force: true }))

const ctx: BenchContext = {
  root,
  /** Another checkout's build can be measured with this one's bench (a branch against main, say). */
  serverDir: resolve(args['server-dir'] ?? root),
  phpDir: resolve(args['php-dir'] ?? process.env.PHP_SERVER_DIR ?? join(root, '../shared/peers/horizon-simple-server')),
  workDir,
  run: { duration: Number(args.duration ?? (args.targets ? 8 : 10)), connections: Number(args.connections) },
  users: Number(args.users),
  mysqlUrl: args['mysql-url']!,
  postgresUrl: args['postgres-url']!,
  pool: Number(args.pool),
  profile: args.profile!,
  pinning,
}

/** `--ab NAME=VALUE`: the setting the B servers run with. */
function parseAb(text: string): { env: Record<string, string>; label: string } {
  const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(text)
  if (!match) throw new Error(`--ab takes NAME=VALUE (e.g. ANALYTICS_ACTIVITY=false), not ${text}`)
  return { env: { [match[1]!]: match[2]! }, label: `${match[1]}=${match[2]}` }
}

/** `--settle`'s default: the job runner's REST_AFTER_MS and half a minute more, for the outbox polls' back-off. */
const DEFAULT_SETTLE_S = (REST_AFTER_MS + 30_000) / 1000

function gamesLoad(): GamesLoad {
  const load = args['games-load'] ?? 'spread'
  if (load !== 'spread' && load !== 'one') throw new Error(`--games-load takes spread or one, not ${load}`)
  return load
}

async function runBench() {
  const selected = args.scenarios ? args.scenarios.split(',') : [...SCENARIO_NAMES]
  const ceiling = await measureCeiling(ctx)
  const results: Result[] = [ceiling]
  if ([args.ab, args['ab-server-dir'], args['ab-games']].filter((a) => a !== undefined).length > 1)
    throw new Error('--ab, --ab-server-dir and --ab-games: one at a time')
  const abGames = args['ab-games'] === undefined ? undefined : Number(args['ab-games'])
  if (abGames !== undefined && !(Number.isInteger(abGames) && abGames >= 2 && abGames <= 1000))
    throw new Error(`--ab-games takes a whole number from 2 to 1000, not ${args['ab-games']}`)
  const otherBuild = args['ab-server-dir'] === undefined ? undefined : resolve(args['ab-server-dir'])
  const ab = otherBuild
    ? { env: {}, label: `build=${basename(otherBuild)}` }
    : abGames !== undefined
      ? { env: {}, label: `games=${abGames}${gamesLoad() === 'one' ? ' load=one' : ''}` }
      : args.ab === undefined
        ? undefined
        : parseAb(args.ab)
  const settle = args.settle === undefined ? DEFAULT_SETTLE_S : Number(args.settle)
  if (!(Number.isInteger(settle) && settle >= 0 && settle <= 900))
    throw new Error(`--settle takes whole seconds from 0 to 900, not ${args.settle}`)
  const aCtx = abGames !== undefined ? { ...ctx, settleMs: settle * 1000 } : ctx
  const bCtx = otherBuild
    ? { ...ctx, serverDir: otherBuild, labelSuffix: ` ${ab!.label}` }
    : abGames !== undefined
      ? { ...aCtx, games: abGames, gamesLoad: gamesLoad(), labelSuffix: ` ${ab!.label}` }
      : ctx
  const rounds = args.rounds === undefined ? 1 : Number(args.rounds)
  if (!(Number.isInteger(rounds) && rounds >= 1 && rounds <= 20))
    throw new Error(`--rounds takes a whole number from 1 to 20, not ${args.rounds}`)
  if (rounds > 1 && !ab) throw new Error('--rounds compares two servers: give it --ab, --ab-games or --ab-server-dir')
  const roundRatios: RoundRatios[] = []
  for (const db of dbs) {
    if (ab && rounds > 1) {
      const a = { ctx: aCtx, env: {} }
      const paired = await benchRounds(a, { ctx: bCtx, env: ab.env }, db, args.workers, selected, ceiling.rps, rounds)
      results.push(...paired.results)
      roundRatios.push(...paired.ratios)
      continue
    }
    results.push(...(await benchOutpost(aCtx, db, args.workers, selected, ceiling.rps)))
    if (ab) results.push(...(await benchOutpost(bCtx, db, args.workers, selected, ceiling.rps, ab.env)))
  }
  if (args.php || args.peer === 'php') {
    const names = args.scenarios ? selected : ['mixed', 'lb-submit', 'save']
    results.push(...(await benchPhp(ctx, names, ceiling.rps)))
  }
  const info = { ...meta(ctx), db: args.db, workers: args.workers ?? 'default' }
  printResults(results, info)
  const ratios = comparisons(results, ab?.label)
  printComparisons(ratios)
  printRounds(roundRatios)
  const engines = engineCosts(results, ab?.label)
  printEngineCosts(engines)
  writeJson(root, `bench-${args.db}`, { meta: info, results, ratios, rounds: roundRatios, engines })
}

async function runScaleOnly() {
  if (dbs.length !== 1) throw new Error('--scale runs on one database: --db sqlite, mysql or postgres')
  const run = await scaleOn(ctx, dbs[0]!, args.workers, Number(args.scale))
  process.stdout.write(`${pinning.note}\n`)
  printTargets(run.targets)
}

async function main() {
  try {
    if (args.scale) await runScaleOnly()
    else if (args.targets) await runTargets(ctx, { workers: args.workers, scaleEntries })
    else await runBench()
  } finally {
    rmSync(workDir, { recursive: true, force: true })
  }
}

main().catch((error) => {
  // fetch's own message ("fetch failed") hides the reason in `cause`.
  const cause = (error as Error).cause
  process.stderr.write(`${(error as Error).stack}\n${cause ? `cause: ${String(cause)}\n` : ''}`)
  process.exit(1)
})
