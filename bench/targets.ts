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
