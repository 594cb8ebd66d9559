import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import { createMysqlDatabase, dropMysqlDatabase, mysqlSettings, onMysqlServer } from './mysql.js'
import { startPhpPeer, seedPhpRemoteConfig, PHP_WORKERS } from './php-peer.js'
import { freePort, serverNodeFlags, startNode, type Server } from './processes.js'
import { runScale } from './scale.js'
import {
  ADMIN_KEY,
  API_KEY,
  REMOTE_CONFIG,
  runScenario,
  scenarios,
  seed,
  SCENARIO_NAMES,
  type Flavour,
  type Result,
} from './scenarios.js'
import { maxTarget, printTargets, ratioTarget, timesTarget, type Target } from './targets.js'

/**
 * `npm run bench`: Outpost in a child process (rate limit off), seeded through its API, then each
 * scenario under autocannon, beside a ceiling server measured in the same run, and optionally beside
 * the PHP server it replaces. Prints one table and writes it as JSON under bench/results/.
 * `--targets` runs what the performance targets need and judges them. Every loop here is bounded in time
 * and count.
 */

const USAGE = `usage: npm run bench -- [options]
  --db sqlite|mysql|both   database(s) for Outpost (default sqlite); mysql uses a fresh database
                           outpost_bench_<pid> at --mysql-url, dropped at the end; both runs
                           the scenarios on each and prints the MariaDB/SQLite ratios
  --workers N              WORKERS for Outpost (default: not set, the server's own default); with
                           --targets, what the default-workers runs use instead of the default
  --peer php, --php        also run the PHP server side by side (README, Performance)
  --php-dir DIR            the PHP server's source (default \$PHP_SERVER_DIR or
                           ../shared/peers/horizon-simple-server)
  --server-dir DIR         run the Outpost built in DIR (DIR/dist/server.js; default this checkout)
  --scenarios a,b          scenarios to run (default all: health, config-all, signup, lb-submit,
                           lb-top, lb-rank, lb-around, save, load, mixed); the PHP peer runs
                           mixed, lb-submit and save unless --scenarios names others
  --duration S             seconds per scenario (default 10; 8 with --targets)
  --connections N          autocannon connections (default 32)
  --users N                players seeded on every server (default 1000)
  --targets                run everything the performance targets need, print them with ✓/✗
  --scale N                fill the default board with N entries, time single requests (with --db)
  --mysql-url URL          default \$BENCH_MYSQL_URL or mysql://root@127.0.0.1:3306/test
  --ab NAME=VALUE           A/B in one run: each database's scenarios run on a server as configured,
                           then on one with the setting NAME=VALUE (e.g. ANALYTICS_ACTIVITY=false),
                           and the two are printed side by side
  --profile                write a V8 CPU profile of the server to bench/results/profiles
                           (node dist/bench/profile-summary.js FILE sums its self time by package)
  --help                   this text
`

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    workers: { type: 'string' },
    peer: { type: 'string' },
    php: { type: 'boolean', default: false },
    'php-dir': { type: 'string' },
    'server-dir': { type: 'string' },
    duration: { type: 'string' },
    connections: { type: 'string', default: '32' },
    users: { type: 'string', default: '1000' },
    scenarios: { type: 'string', default: '' },
    targets: { type: 'boolean', default: false },
    scale: { type: 'string', default: '' },
    'mysql-url': { type: 'string', default: process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test' },
    profile: { type: 'boolean', default: false },
    ab: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
})
if (args.help) {
  process.stdout.write(USAGE)
  process.exit(0)
}
if (args.peer !== undefined && args.peer !== 'php') throw new Error(`unknown peer ${args.peer} (only php)`)
if (!['sqlite', 'mysql', 'both'].includes(args.db!)) throw new Error(`--db is sqlite, mysql or both, not ${args.db}`)

const root = fileURLToPath(new URL('../../', import.meta.url))
const runOptions = {
  duration: Number(args.duration ?? (args.targets ? 8 : 10)),
  connections: Number(args.connections),
}
const userCount = Number(args.users)
const phpDir = resolve(
  args['php-dir'] ?? process.env.PHP_SERVER_DIR ?? join(root, '../shared/peers/horizon-simple-server'),
)
/** Another checkout's build can be measured with this one's bench (a branch against main, say). */
const serverDir = resolve(args['server-dir'] ?? root)
const workDir = mkdtempSync(join(tmpdir(), 'outpost-bench-'))
// Also on ^C: the servers' databases and logs in it are of no use after the run.
process.once('exit', () => rmSync(workDir, { recursive: true, force: true }))

type Db = 'sqlite' | 'mysql'

/**
 * A database of its own per run, dropped at the end: two benches on one MariaDB (the machine is
 * shared) would otherwise drop each other's tables mid-run.
 */
const MYSQL_DB = `outpost_bench_${process.pid}`

async function freshMysqlDatabase(url: string): Promise<Record<string, string>> {
  // Those of benches that were killed before they could drop theirs (their pid is gone).
  const rows = (await onMysqlServer(url, "SHOW DATABASES LIKE 'outpost\\_bench\\_%'")) as Array<Record<string, string>>
  for (const row of rows) {
    const name = Object.values(row)[0]!
    const pid = Number(/^outpost_bench_(\d+)$/.exec(name)?.[1])
    if (pid && !existsSync(`/proc/${pid}`)) await dropMysqlDatabase(url, name)
  }
  await dropMysqlDatabase(url, MYSQL_DB)
  await createMysqlDatabase(url, MYSQL_DB)
  return mysqlSettings(url, MYSQL_DB, 16)
}

interface Outpost {
  server: Server
  /** Stops the server and drops its MariaDB database. */
  stop: () => Promise<void>
  label: string
  dbEnv: Record<string, string>
  log: string
}

/** Outpost on a fresh database; `workers` undefined leaves WORKERS unset (the server's default). */
async function startOutpost(
  db: Db,
  workers: string | undefined,
  extraEnv: Record<string, string> = {},
): Promise<Outpost> {
  const dir = mkdtempSync(join(workDir, `outpost-${db}-`))
  const dbEnv =
    db === 'mysql'
      ? await freshMysqlDatabase(args['mysql-url']!)
      : { DB_DRIVER: 'sqlite', DB_PATH: join(dir, 'bench.db') }
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
    ...serverNodeFlags(serverDir),
    ...(args.profile ? ['--cpu-prof', `--cpu-prof-dir=${join(root, 'bench/results/profiles')}`] : []),
  ]
  const server = await startNode(join(serverDir, 'dist/server.js'), [], {
    cwd: serverDir,
    env,
    port,
    logFile: log,
    nodeArgs,
  })
  // With several workers /health answers as soon as the first one listens: give the rest a moment.
  if (workers !== '1') await new Promise((resolve) => setTimeout(resolve, 1500))
  const stop = async () => {
    await server.stop()
    if (db === 'mysql') await dropMysqlDatabase(args['mysql-url']!, MYSQL_DB)
  }
  const variant = Object.entries(extraEnv).map(([name, value]) => ` ${name}=${value}`)
  return { server, label: `outpost ${db} w=${workers ?? 'default'}${variant.join('')}`, dbEnv, log, stop }
}

const tail = (file: string) => () => {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-5).join('\n').slice(0, 2000)
  } catch {
    return '(no log)'
  }
}

async function measureCeiling(label = 'ceiling'): Promise<Result> {
  const port = await freePort()
  const ceiling = await startNode(join(root, 'dist/bench/ceiling.js'), [String(port), API_KEY], {
    cwd: root,
    env: {},
    port,
    logFile: join(workDir, 'ceiling.log'),
  })
  try {
    const cpuBefore = ceiling.cpuMs()
    const run = await autocannon({ url: `${ceiling.url}/ceiling`, ...runOptions, headers: { 'x-api-key': API_KEY } })
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
    }
  } finally {
    await ceiling.stop()
  }
}

/** Seeds Outpost on `db` and runs `names` in order. */
async function benchOutpost(
  db: Db,
  workers: string | undefined,
  names: string[],
  ceilingRps: number,
  extraEnv: Record<string, string> = {},
) {
  const outpost = await startOutpost(db, workers, extraEnv)
  const results: Result[] = []
  try {
    process.stdout.write(`${outpost.label}: seeding ${userCount} users…\n`)
    const seeded = await seed(outpost.server, 'outpost', userCount)
    const all = scenarios(seeded, 'outpost')
    for (const name of names) {
      const scenario = all.find((s) => s.name === name)
      if (!scenario) throw new Error(`unknown scenario ${name}`)
      results.push(
        await runScenario(outpost.server, outpost.label, scenario, runOptions, ceilingRps, tail(outpost.log)),
      )
    }
    if (db === 'sqlite')
      process.stdout.write(`database size: ${(statSync(outpost.dbEnv.DB_PATH!).size / 2 ** 20).toFixed(1)} MB\n`)
  } catch (error) {
    // The temp dir goes at the end of the run: the server's own account of the failure goes with the error.
    ;(error as Error).message += `\nserver log tail (${outpost.label}):\n${tail(outpost.log)()}`
    throw error
  } finally {
    await outpost.stop()
  }
  return results
}

async function benchPhp(names: string[], ceilingRps: number) {
  const dir = mkdtempSync(join(workDir, 'php-'))
  const php = await startPhpPeer({ sourceDir: phpDir, dir, port: await freePort(), apiKey: API_KEY })
  const label = `php w=${PHP_WORKERS}`
  const results: Result[] = []
  try {
    process.stdout.write(`${label}: seeding ${userCount} users…\n`)
    const flavour: Flavour = 'php'
    const seeded = await seed(php, flavour, userCount)
    seedPhpRemoteConfig(php.dbPath, REMOTE_CONFIG)
    const all = scenarios(seeded, flavour)
    for (const name of names) {
      const scenario = all.find((s) => s.name === name)
      if (!scenario) throw new Error(`unknown scenario ${name}`)
      results.push(await runScenario(php, label, scenario, runOptions, ceilingRps, tail(join(dir, 'php-fpm.log'))))
    }
  } finally {
    await php.stop()
  }
  return results
}

function printResults(results: Result[], meta: Record<string, unknown>) {
  const rows = results.map((r) => [
    r.server,
    r.scenario,
    r.rps.toFixed(0),
    `${r.p50} ms`,
    `${r.p99} ms`,
    String(r.non2xx),
    String(r.errors),
    r.ratio === null ? '—' : `${(r.ratio * 100).toFixed(0)} %`,
    `${(r.cpuPerRequestMs * 1000).toFixed(0)} µs`,
    `${r.peakRssMb.toFixed(0)} MB`,
    String(r.processes),
  ])
  const head = [
    'server',
    'scenario',
    'rps',
    'p50',
    'p99',
    'non-2xx',
    'errors',
    'of ceiling',
    'cpu/req',
    'peak RSS',
    'procs',
  ]
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`
  process.stdout.write(
    `\n${Object.entries(meta)
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ')}\n`,
  )
  process.stdout.write(`${line(head)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|\n`)
  for (const row of rows) process.stdout.write(`${line(row)}\n`)
  for (const r of results) if (r.check) process.stdout.write(`check ${r.server} ${r.scenario}: ${r.check}\n`)
  process.stdout.write(
    'cpu/req sums every process of the server; peak RSS is the largest one process reached (per worker); procs the most processes seen.\n',
  )
}

const find = (results: Result[], server: string, scenario: string) =>
  results.find((r) => r.server === server && r.scenario === scenario)
/** A result's rps only when it ran clean: a run with errors measures the errors. */
const cleanRps = (r: Result | undefined) => (r && !r.errors && !r.non2xx ? r.rps : undefined)

interface Comparison {
  scenario: string
  first: string
  second: string
  /** rps of the first over the second; null when either run had errors. */
  rps: number | null
  /** Server CPU per request of the second over the first: how much less work the first does. */
  cpu: number
}

/** MariaDB beside SQLite, and Outpost beside the PHP peer, scenario by scenario. */
function comparisons(results: Result[], variant?: string): Comparison[] {
  const out: Comparison[] = []
  const all = [...new Set(results.filter((r) => r.server.startsWith('outpost')).map((r) => r.server))]
  const outposts = variant ? all.filter((s) => !s.endsWith(` ${variant}`)) : all
  const sqlite = outposts.find((s) => s.includes('sqlite'))
  const mysql = outposts.find((s) => s.includes('mysql'))
  const pairs: Array<[string | undefined, string | undefined]> = [
    [mysql, sqlite],
    [sqlite ?? mysql, `php w=${PHP_WORKERS}`],
    // A/B: each server as configured beside the same with the setting changed.
    ...(variant ? outposts.map((s): [string, string] => [s, `${s} ${variant}`]) : []),
  ]
  for (const scenario of SCENARIO_NAMES)
    for (const [first, second] of pairs) {
      const [a, b] = [first && find(results, first, scenario), second && find(results, second, scenario)]
      if (!a || !b || first === second) continue
      const [x, y] = [cleanRps(a), cleanRps(b)]
      out.push({
        scenario,
        first: first!,
        second: second!,
        rps: x !== undefined && y ? x / y : null,
        cpu: b.cpuPerRequestMs / a.cpuPerRequestMs,
      })
    }
  return out
}

function writeJson(kind: string, data: unknown) {
  mkdirSync(join(root, 'bench/results'), { recursive: true })
  const file = join(root, 'bench/results', `${kind}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`)
  writeFileSync(file, JSON.stringify(data, null, 2))
  process.stdout.write(`\nwritten: ${file}\n`)
}

const meta = () => ({
  connections: runOptions.connections,
  duration: `${runOptions.duration} s`,
  users: userCount,
  node: process.version,
  cpus: 2,
})

/** The single-worker scenarios the targets name, with the least share of the ceiling each must reach. */
const SINGLE_WORKER: Array<[string, number]> = [
  ['config-all', 0.6],
  ['mixed', 0.3],
  ['load', 0.4],
  ['lb-top', 0.6],
  ['lb-rank', 0.3],
  ['save', 0.3],
  ['lb-around', 0.25],
  ['lb-submit', 0.2],
  ['signup', 0.15],
]

async function runTargets() {
  const started = Date.now()
  // The ceiling before and after the single-worker set, which the targets divide by their mean:
  // on a shared machine the load of others drifts within minutes.
  const before = await measureCeiling('ceiling before')
  const results: Result[] = [before]
  const single = 'outpost sqlite w=1'
  // "Default workers" leaves WORKERS unset; --workers stands in for the default (to try `auto`, say).
  const many = args.workers
  const sqlite = `outpost sqlite w=${many ?? 'default'}`
  const mysql = `outpost mysql w=${many ?? 'default'}`
  const php = `php w=${PHP_WORKERS}`
  // A phase that fails (MariaDB down, nginx missing) leaves its targets unmeasured; the others still run.
  const phase = async (what: string, run: () => Promise<Result[]>) => {
    try {
      results.push(...(await run()))
    } catch (error) {
      process.stderr.write(`!!! ${what} failed: ${(error as Error).stack}\n`)
    }
  }
  const singleNames = SINGLE_WORKER.map(([name]) => name)
  await phase(single, () => benchOutpost('sqlite', '1', singleNames, before.rps))
  const after = await measureCeiling('ceiling after')
  results.push(after)
  const ceiling = { rps: (before.rps + after.rps) / 2 }
  await phase(sqlite, () => benchOutpost('sqlite', many, ['mixed', 'lb-submit'], ceiling.rps))
  await phase(mysql, () => benchOutpost('mysql', many, ['mixed', 'lb-submit'], ceiling.rps))
  await phase(php, () => benchPhp(['mixed', 'lb-submit'], ceiling.rps))
  for (const result of results) if (result.ratio !== null) result.ratio = result.rps / ceiling.rps

  const r = (server: string, scenario: string) => find(results, server, scenario)
  const targets: Target[] = []
  for (const [name, min] of SINGLE_WORKER)
    targets.push(ratioTarget(`1 worker, SQLite: ${name} / ceiling`, cleanRps(r(single, name)), ceiling.rps, min))
  targets.push(maxTarget('1 worker, SQLite: mixed p99', r(single, 'mixed')?.p99, 15, 'ms'))
  const mixedDefault = r(sqlite, 'mixed')
  targets.push(
    ratioTarget('default workers, SQLite: mixed / 1-worker ceiling', cleanRps(mixedDefault), ceiling.rps, 0.45),
  )
  targets.push({
    target: 'default workers, SQLite mixed: errors, non-2xx, lost writes',
    measured: mixedDefault
      ? `${mixedDefault.errors} errors, ${mixedDefault.non2xx} non-2xx, ${mixedDefault.lost ?? '?'} lost`
      : 'not measured',
    threshold: '0, 0, 0',
    met: mixedDefault ? !mixedDefault.errors && !mixedDefault.non2xx && mixedDefault.lost === 0 : null,
  })
  targets.push(
    ratioTarget('MariaDB / SQLite (default workers): mixed', cleanRps(r(mysql, 'mixed')), cleanRps(mixedDefault), 0.6),
  )
  targets.push(maxTarget('MariaDB (default workers): mixed p99', r(mysql, 'mixed')?.p99, 20, 'ms'))
  targets.push(
    ratioTarget(
      'MariaDB / SQLite (default workers): lb-submit',
      cleanRps(r(mysql, 'lb-submit')),
      cleanRps(r(sqlite, 'lb-submit')),
      0.7,
    ),
  )
  targets.push(
    timesTarget(
      'Outpost (SQLite, default workers) / PHP: mixed',
      cleanRps(mixedDefault),
      cleanRps(r(php, 'mixed')),
      10,
    ),
  )
  targets.push(
    timesTarget(
      'Outpost (SQLite, default workers) / PHP: lb-submit',
      cleanRps(r(sqlite, 'lb-submit')),
      cleanRps(r(php, 'lb-submit')),
      5,
    ),
  )
  const outpostRuns = results.filter((x) => x.server.startsWith('outpost'))
  const worst = outpostRuns.reduce<Result | undefined>((w, x) => (!w || x.peakRssMb > w.peakRssMb ? x : w), undefined)
  targets.push({
    ...maxTarget('peak RSS per Outpost process, every scenario', worst?.peakRssMb, 250, 'MB'),
    ...(worst ? { measured: `${worst.peakRssMb.toFixed(0)} MB (${worst.server} ${worst.scenario})` } : {}),
  })

  const info = {
    ...meta(),
    seconds: Math.round((Date.now() - started) / 1000),
    ceiling: `${ceiling.rps.toFixed(0)} rps (mean of ${before.rps.toFixed(0)} before and ${after.rps.toFixed(0)} after the 1-worker set)`,
  }
  printResults(results, info)
  printTargets(targets)
  // Not a target, but the steadier reading on a shared machine: the scheduler shares the CPU per
  // process, so the PHP peer's 12 processes get more of it than one Node process when others are busy.
  const efficiency: Record<string, number> = {}
  for (const scenario of ['mixed', 'lb-submit']) {
    const [ours, theirs] = [r(sqlite, scenario), r(php, scenario)]
    if (ours && theirs) efficiency[scenario] = theirs.cpuPerRequestMs / ours.cpuPerRequestMs
  }
  if (Object.keys(efficiency).length)
    process.stdout.write(
      `server CPU per request, PHP / Outpost (SQLite, default workers): ${Object.entries(efficiency)
        .map(([name, x]) => `${name} ${x.toFixed(1)}×`)
        .join(', ')}\n`,
    )
  process.stdout.write('The 1M-entry board targets are a separate run: npm run bench -- --scale 1000000 [--db mysql]\n')
  writeJson('targets', { meta: info, results, targets, cpuPerRequestPhpOverOutpost: efficiency })
}

/** `--ab NAME=VALUE`: the setting the B servers run with. */
function parseAb(text: string): { env: Record<string, string>; label: string } {
  const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(text)
  if (!match) throw new Error(`--ab takes NAME=VALUE (e.g. ANALYTICS_ACTIVITY=false), not ${text}`)
  return { env: { [match[1]!]: match[2]! }, label: `${match[1]}=${match[2]}` }
}

async function runBench() {
  const selected = args.scenarios ? args.scenarios.split(',') : [...SCENARIO_NAMES]
  const ceiling = await measureCeiling()
  const results: Result[] = [ceiling]
  const dbs: Db[] = args.db === 'both' ? ['sqlite', 'mysql'] : [args.db as Db]
  const ab = args.ab === undefined ? undefined : parseAb(args.ab)
  for (const db of dbs) {
    results.push(...(await benchOutpost(db, args.workers, selected, ceiling.rps)))
    if (ab) results.push(...(await benchOutpost(db, args.workers, selected, ceiling.rps, ab.env)))
  }
  if (args.php || args.peer === 'php') {
    const names = args.scenarios ? selected : ['mixed', 'lb-submit', 'save']
    results.push(...(await benchPhp(names, ceiling.rps)))
  }
  const info = { db: args.db, workers: args.workers ?? 'default', ...meta() }
  printResults(results, info)
  const ratios = comparisons(results, ab?.label)
  if (ratios.length) process.stdout.write('\nside by side:\n')
  for (const c of ratios)
    process.stdout.write(
      `  ${c.scenario}: ${c.first} / ${c.second}: ${c.rps === null ? 'rps not comparable (errors)' : `${c.rps.toFixed(2)}× the rps`}, CPU per request ${c.second} / ${c.first}: ${c.cpu.toFixed(2)}×\n`,
    )
  writeJson(`bench-${args.db}`, { meta: info, results, ratios })
}

async function runScaleOnly() {
  if (args.db === 'both') throw new Error('--scale runs on one database: --db sqlite or --db mysql')
  const outpost = await startOutpost(args.db as Db, args.workers)
  try {
    const targets = await runScale({
      url: outpost.server.url,
      apiKey: API_KEY,
      dbEnv: outpost.dbEnv,
      entries: Number(args.scale),
      resultsDir: join(root, 'bench/results'),
      peakRss: outpost.server.peakRss,
    })
    printTargets(targets)
  } catch (error) {
    ;(error as Error).message += `\nserver log tail (${outpost.label}):\n${tail(outpost.log)()}`
    throw error
  } finally {
    await outpost.stop()
  }
}

async function main() {
  try {
    if (args.scale) await runScaleOnly()
    else if (args.targets) await runTargets()
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
