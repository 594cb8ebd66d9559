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
      "Outpost's plus mariadbd's); stmts/req from the server's outpost_db_statements_total; peak RSS is the " +
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

/** MariaDB beside SQLite, and Outpost beside the PHP peer, scenario by scenario. */
export function comparisons(results: Result[], variant?: string): Comparison[] {
  const out: Comparison[] = []
  const all = [...new Set(results.filter((r) => r.server.startsWith('outpost')).map((r) => r.server))]
  const outposts = variant ? all.filter((s) => !s.endsWith(` ${variant}`)) : all
  const sqlite = outposts.find((s) => s.includes('sqlite'))
  const mysql = outposts.find((s) => s.includes('mysql'))
  const pairs: Array<[string | undefined, string | undefined]> = [
    [mysql, sqlite],
    [sqlite ?? mysql, PHP_LABEL],
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
