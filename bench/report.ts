import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { SCENARIO_NAMES, type Result } from './scenarios.js'
import { PHP_LABEL, type BenchContext } from './servers.js'

/** The bench's table, its side-by-side ratios and its JSON under bench/results/. */

/** What a reader needs to know of the run: with every table and in every JSON file. */
export const meta = (ctx: BenchContext) => ({
  pinning: ctx.pinning.note,
  serverCore: ctx.pinning.serverCore,
  benchCore: ctx.pinning.benchCore,
  connections: ctx.run.connections,
  duration: `${ctx.run.duration} s`,
  users: ctx.users,
  node: process.version,
})

const µs = (ms: number) => `${(ms * 1000).toFixed(0)} µs`

export function printResults(results: Result[], info: Record<string, unknown>) {
  const rows = results.map((r) => [
    r.server,
    r.scenario,
    r.rps.toFixed(0),
    `${r.p50} ms`,
    `${r.p99} ms`,
    String(r.non2xx),
    String(r.errors),
    r.ratio === null ? '—' : `${(r.ratio * 100).toFixed(0)} %`,
    µs(r.cpuPerRequestMs),
    r.statementsPerRequest === undefined || r.statementsPerRequest === null ? '—' : r.statementsPerRequest.toFixed(2),
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
    'stmts/req',
    'peak RSS',
    'procs',
  ]
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`
  const { pinning, ...rest } = info
  process.stdout.write(
    `\n${String(pinning)}\n${Object.entries(rest)
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ')}\n`,
  )
  process.stdout.write(`${line(head)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|\n`)
  for (const row of rows) process.stdout.write(`${line(row)}\n`)
  for (const r of results) if (r.check) process.stdout.write(`check ${r.server} ${r.scenario}: ${r.check}\n`)
  process.stdout.write(
    'cpu/req sums every process and thread of the server (nginx and php-fpm with their workers; for mysql ' +
      "Outpost's plus mariadbd's; for postgres Outpost's plus the postmaster's, its auxiliary processes' and " +
      "the backends of the run's database); stmts/req from the server's outpost_db_statements_total; peak RSS is the " +
      'largest one process reached (VmHWM, per worker); procs the most processes seen.\n',
  )
}

export const find = (results: Result[], server: string, scenario: string) =>
  results.find((r) => r.server === server && r.scenario === scenario)
/** A result's rps only when it ran clean: a run with errors measures the errors. */
export const cleanRps = (r: Result | undefined) => (r && !r.errors && !r.non2xx ? r.rps : undefined)

interface Comparison {
  scenario: string
  first: string
  second: string
  /** rps of the first over the second; null when either run had errors. */
  rps: number | null
  /** Server CPU per request of the second over the first: how much less work the first does. */
  cpu: number
}

/** MariaDB beside SQLite, PostgreSQL beside both, and Outpost beside the PHP peer, scenario by scenario. */
export function comparisons(results: Result[], variant?: string): Comparison[] {
  const out: Comparison[] = []
  const all = [...new Set(results.filter((r) => r.server.startsWith('outpost')).map((r) => r.server))]
  const outposts = variant ? all.filter((s) => !s.endsWith(` ${variant}`)) : all
  const sqlite = outposts.find((s) => s.includes('sqlite'))
  const mysql = outposts.find((s) => s.includes('mysql'))
  const postgres = outposts.find((s) => s.includes('postgres'))
  const pairs: Array<[string | undefined, string | undefined]> = [
    [mysql, sqlite],
    // The second's CPU over the first's: PostgreSQL's cost as a multiple of MariaDB's and SQLite's.
    [mysql, postgres],
    [sqlite, postgres],
    [sqlite ?? mysql ?? postgres, PHP_LABEL],
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

export function printComparisons(ratios: Comparison[]) {
  if (ratios.length) process.stdout.write('\nside by side:\n')
  for (const c of ratios)
    process.stdout.write(
      `  ${c.scenario}: ${c.first} / ${c.second}: ${c.rps === null ? 'rps not comparable (errors)' : `${c.rps.toFixed(2)}× the rps`}, CPU per request ${c.second} / ${c.first}: ${c.cpu.toFixed(2)}×\n`,
    )
}

export function writeJson(root: string, kind: string, data: unknown) {
  mkdirSync(join(root, 'bench/results'), { recursive: true })
  const file = join(root, 'bench/results', `${kind}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`)
  writeFileSync(file, JSON.stringify(data, null, 2))
  process.stdout.write(`\nwritten: ${file}\n`)
  return file
}

/** One engine's cost in a run: CPU (Outpost + database server) and statements per request, by scenario. */
export interface EngineCost {
  server: string
  scenario: string
  cpuPerRequestUs: number
  /** The database server's share of it. */
  databaseCpuPerRequestUs: number | null
  statementsPerRequest: number | null
}

/** The scenarios each engine's cost is read from: the mix, and the write every player makes. */
const COST_SCENARIOS = ['mixed', 'lb-submit']

/** Each Outpost run's cost in the scenarios that judge an engine (the A/B's B runs left out). */
export function engineCosts(results: Result[], variant?: string): EngineCost[] {
  return results
    .filter((r) => r.server.startsWith('outpost') && !(variant && r.server.endsWith(` ${variant}`)))
    .filter((r) => COST_SCENARIOS.includes(r.scenario))
    .map((r) => ({
      server: r.server,
      scenario: r.scenario,
      cpuPerRequestUs: r.cpuPerRequestMs * 1000,
      databaseCpuPerRequestUs: r.databaseCpuPerRequestMs === undefined ? null : r.databaseCpuPerRequestMs * 1000,
      statementsPerRequest: r.statementsPerRequest ?? null,
    }))
}

/**
 * The per-engine costs, and how PostgreSQL's compare with MariaDB's: no more statements per request,
 * and at most 1.2× the CPU per request (docs/performance.md, PostgreSQL).
 */
export function printEngineCosts(costs: EngineCost[]) {
  if (!costs.length) return
  process.stdout.write("\nper engine (CPU per request: Outpost + the database server's processes):\n")
  for (const c of costs)
    process.stdout.write(
      `  ${c.server} ${c.scenario}: ${c.cpuPerRequestUs.toFixed(0)} µs${c.databaseCpuPerRequestUs === null ? '' : ` (database ${c.databaseCpuPerRequestUs.toFixed(0)} µs)`}, ${c.statementsPerRequest === null ? '—' : c.statementsPerRequest.toFixed(2)} statements\n`,
    )
  for (const scenario of COST_SCENARIOS) {
    const of = (engine: string) => costs.find((c) => c.scenario === scenario && c.server.includes(engine))
    const [postgres, mysql] = [of('postgres'), of('mysql')]
    if (!postgres || !mysql) continue
    const cpu = postgres.cpuPerRequestUs / mysql.cpuPerRequestUs
    const statements =
      postgres.statementsPerRequest === null || mysql.statementsPerRequest === null
        ? 'statements not counted'
        : `statements ${postgres.statementsPerRequest.toFixed(2)} vs ${mysql.statementsPerRequest.toFixed(2)} ` +
          (postgres.statementsPerRequest <= mysql.statementsPerRequest ? '✓' : '✗')
    process.stdout.write(
      `  ${scenario}: PostgreSQL / MariaDB CPU per request ${cpu.toFixed(2)}× ${cpu <= 1.2 ? '✓' : '✗'} (≤ 1.2×), ${statements} (≤ MariaDB's)\n`,
    )
  }
}
