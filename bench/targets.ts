/**
 * The performance targets as rows: what was measured, the threshold, and whether it was met. A target
 * that could not be measured in this run (its scenario failed or was not run) shows as `—`, never ✓.
 */

export interface Target {
  target: string
  measured: string
  threshold: string
  met: boolean | null
}

const pct = (x: number) => `${(x * 100).toFixed(0)} %`

/** A ratio target: `value / base ≥ min`. */
export function ratioTarget(target: string, value: number | undefined, base: number | undefined, min: number): Target {
  if (value === undefined || base === undefined || base === 0)
    return { target, measured: 'not measured', threshold: `≥ ${pct(min)}`, met: null }
  const ratio = value / base
  return { target, measured: pct(ratio), threshold: `≥ ${pct(min)}`, met: ratio >= min }
}

/** A multiple target: `value / base ≥ min×`. */
export function timesTarget(target: string, value: number | undefined, base: number | undefined, min: number): Target {
  if (value === undefined || base === undefined || base === 0)
    return { target, measured: 'not measured', threshold: `≥ ${min}×`, met: null }
  const times = value / base
  return { target, measured: `${times.toFixed(1)}×`, threshold: `≥ ${min}×`, met: times >= min }
}

/** An upper bound: `value ≤ max` in `unit`. */
export function maxTarget(target: string, value: number | undefined, max: number, unit: string): Target {
  if (value === undefined) return { target, measured: 'not measured', threshold: `≤ ${max} ${unit}`, met: null }
  return { target, measured: `${Number(value.toFixed(2))} ${unit}`, threshold: `≤ ${max} ${unit}`, met: value <= max }
}

export function printTargets(targets: Target[]) {
  const rows = targets.map((t) => [t.target, t.measured, t.threshold, t.met === null ? '—' : t.met ? '✓' : '✗'])
  const head = ['target', 'measured', 'threshold', 'met']
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`
  process.stdout.write(`\n${line(head)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|\n`)
  for (const row of rows) process.stdout.write(`${line(row)}\n`)
  const met = targets.filter((t) => t.met).length
  process.stdout.write(`${met} of ${targets.length} targets met\n`)
}

/** An upper bound on a multiple: `value / base ≤ max×`. */
export function maxTimesTarget(
  target: string,
  value: number | undefined,
  base: number | undefined,
  max: number,
): Target {
  if (value === undefined || base === undefined || base === 0)
    return { target, measured: 'not measured', threshold: `≤ ${max}×`, met: null }
  const times = value / base
  return { target, measured: `${times.toFixed(2)}×`, threshold: `≤ ${max}×`, met: times <= max }
}

/** What the per-core targets read of one scenario's run (a subset of the bench's Result). */
export interface Measured {
  server: string
  scenario: string
  rps: number
  p99: number
  non2xx: number
  errors: number
  cpuPerRequestMs: number
  peakRssMb: number
  statementsPerRequest?: number | null
  lost?: number | null
}

/** Sequential request times on a filled board (bench/scale.ts), by request name ("rank middle"). */
export type ScaleReadings = Record<string, { median: number; p99: number }>

export interface PerCoreInputs {
  results: Measured[]
  /** The server labels of the three runs the targets compare. */
  labels: { php: string; sqlite: string; mysql: string }
  scale: { sqlite?: ScaleReadings; mysql?: ScaleReadings }
  /** Entries of the filled board the scale readings were taken on. */
  scaleEntries: number
  /** Peak RSS of the scale runs' servers, which have no scenario result. */
  scalePeakRssMb: Array<{ server: string; mb: number }>
  connections: number
}

/** The board size the filled-board targets are set at. */
export const SCALE_TARGET_ENTRIES = 1_000_000

const micro = (ms: number | undefined) => (ms === undefined ? undefined : ms * 1000)

/** The worst median of rank and around at top, middle and bottom, with where it was. */
function worstRead(readings: ScaleReadings | undefined): { median: number; name: string } | undefined {
  if (!readings) return undefined
  const reads = Object.entries(readings).filter(([name]) => /^(rank|around) /.test(name))
  if (!reads.length) return undefined
  const [name, worst] = reads.reduce((w, x) => (x[1].median > w[1].median ? x : w))
  return { median: worst.median, name }
}

/**
 * The targets of the per-core performance issue, judged on one run. A target whose runs are missing
 * (a phase failed, or was not asked for) is `—`, never ✓.
 */
export function judgePerCore(input: PerCoreInputs): Target[] {
  const { results, labels } = input
  const r = (server: string, scenario: string) => results.find((x) => x.server === server && x.scenario === scenario)
  const targets: Target[] = []
  for (const [scenario, min] of [
    ['mixed', 15],
    ['lb-submit', 8],
  ] as const) {
    const [php, ours] = [r(labels.php, scenario), r(labels.sqlite, scenario)]
    const target = timesTarget(
      `per core, PHP / Outpost (SQLite, 1 worker) CPU per request: ${scenario}`,
      php?.cpuPerRequestMs,
      ours?.cpuPerRequestMs,
      min,
    )
    if (php && ours) target.measured += ` (rps ${(ours.rps / php.rps).toFixed(1)}×)`
    targets.push(target)
  }
  const sqliteMixed = r(labels.sqlite, 'mixed')
  const sqliteSubmit = r(labels.sqlite, 'lb-submit')
  targets.push(maxTarget('SQLite, 1 worker: mixed CPU per request', micro(sqliteMixed?.cpuPerRequestMs), 50, 'µs'))
  targets.push(maxTarget('SQLite, 1 worker: lb-submit CPU per request', micro(sqliteSubmit?.cpuPerRequestMs), 80, 'µs'))
  const p99 = maxTarget(`SQLite, 1 worker: mixed p99 at ${input.connections} connections`, sqliteMixed?.p99, 8, 'ms')
  // The target is set at 32 connections: fewer make a low p99 easy, so only a miss counts then.
  if (input.connections < 32 && p99.met) p99.met = null
  targets.push(p99)
  const mysqlMixed = r(labels.mysql, 'mixed')
  const mysqlSubmit = r(labels.mysql, 'lb-submit')
  targets.push(
    maxTimesTarget(
      'MariaDB stack / SQLite CPU per request: mixed',
      mysqlMixed?.cpuPerRequestMs,
      sqliteMixed?.cpuPerRequestMs,
      2.5,
    ),
  )
  targets.push(
    maxTimesTarget(
      'MariaDB stack / SQLite CPU per request: lb-submit',
      mysqlSubmit?.cpuPerRequestMs,
      sqliteSubmit?.cpuPerRequestMs,
      3,
    ),
  )
  targets.push(maxTarget('MariaDB: mixed p99', mysqlMixed?.p99, 20, 'ms'))
  for (const [engine, submit] of [
    ['MariaDB', mysqlSubmit],
    ['SQLite', sqliteSubmit],
  ] as const)
    targets.push(
      maxTarget(`${engine}: statements per submit`, submit?.statementsPerRequest ?? undefined, 4, 'statements'),
    )
  for (const [engine, readings, max] of [
    ['SQLite', input.scale.sqlite, 2],
    ['MariaDB', input.scale.mysql, 5],
  ] as const) {
    const worst = worstRead(readings)
    const target = maxTarget(`1M-entry board, ${engine}: rank/around median (worst)`, worst?.median, max, 'ms')
    if (worst) target.measured += ` (${worst.name})`
    // A smaller board (--scale-entries) can fail the target but never prove it: a pass there is `—`.
    if (worst && input.scaleEntries < SCALE_TARGET_ENTRIES) {
      target.measured += ` on ${input.scaleEntries.toLocaleString('en')} entries, not 1,000,000`
      if (target.met) target.met = null
    }
    targets.push(target)
  }
  const rss = [
    ...results
      .filter((x) => x.server.startsWith('outpost'))
      .map((x) => ({ server: `${x.server} ${x.scenario}`, mb: x.peakRssMb })),
    ...input.scalePeakRssMb,
  ]
  const worstRss = rss.reduce<(typeof rss)[number] | undefined>((w, x) => (!w || x.mb > w.mb ? x : w), undefined)
  const rssTarget = maxTarget('peak RSS per Outpost process', worstRss?.mb, 250, 'MB')
  if (worstRss) rssTarget.measured = `${worstRss.mb.toFixed(0)} MB (${worstRss.server})`
  targets.push(rssTarget)
  // Non-2xx and errors on any server make its CPU per request a measure of failures. Lost writes are
  // Outpost's target only: the PHP server's submit reads then writes outside a transaction and loses
  // a best score now and then by design; that is printed in the checks, not judged here.
  const failed = results.filter((x) => x.non2xx || x.errors || (x.server.startsWith('outpost') && (x.lost ?? 0) > 0))
  targets.push({
    target: 'every scenario: non-2xx / errors (every server), lost writes (Outpost)',
    measured: !results.length
      ? 'not measured'
      : failed.length
        ? failed.map((x) => `${x.server} ${x.scenario}: ${x.non2xx}/${x.errors}/${x.lost ?? 0}`).join('; ')
        : `none in ${results.length} runs`,
    threshold: 'none',
    met: results.length ? failed.length === 0 : null,
  })
  return targets
}
