/**
 * A strict reader of the Prometheus text format (version 0.0.4), enough to prove that /metrics is
 * what a Prometheus server accepts: every sample belongs to a family declared by `# TYPE` before it,
 * names and labels are well formed, values are numbers, and histograms are consistent.
 */
export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

export interface Family {
  name: string
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped'
  help: string
  samples: Sample[]
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)( -?\d+)?$/
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"\s*(,|$)/y

function parseValue(text: string, line: string): number {
  // Prometheus reads these as Go's ParseFloat does: in any letter case (prom-client writes `Nan`).
  if (/^\+?inf$/i.test(text)) return Infinity
  if (/^-inf$/i.test(text)) return -Infinity
  if (/^nan$/i.test(text)) return NaN
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`not a number in: ${line}`)
  return Number(text)
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {}
  LABEL.lastIndex = 0
  while (LABEL.lastIndex < text.length) {
    const start = LABEL.lastIndex
    const match = LABEL.exec(text)
    if (!match || match.index !== start) throw new Error(`bad labels in: ${line}`)
    if (match[1] in labels) throw new Error(`label ${match[1]} twice in: ${line}`)
    labels[match[1]] = match[2].replace(/\\n/g, '\n').replace(/\\(["\\])/g, '$1')
    if (match[3] === '') break
  }
  return labels
}

/** The family a sample name belongs to (a histogram's `_bucket`, `_sum`, `_count` belong to it). */
function familyOf(families: Map<string, Family>, name: string): Family | undefined {
  const own = families.get(name)
  if (own) return own
  const suffix = /_(bucket|sum|count)$/.exec(name)
  if (!suffix) return undefined
  const base = families.get(name.slice(0, -suffix[0].length))
  return base && (base.type === 'histogram' || base.type === 'summary') ? base : undefined
}

export function parsePrometheus(text: string): Map<string, Family> {
  const families = new Map<string, Family>()
  const helps = new Map<string, string>()
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    if (line.startsWith('#')) {
      const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line)
      if (!meta) continue // a plain comment
      const [, kind, name, rest] = meta
      if (!NAME.test(name)) throw new Error(`bad metric name: ${line}`)
      if (kind === 'HELP') helps.set(name, rest)
      else {
        if (families.has(name)) throw new Error(`family ${name} declared twice`)
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest))
          throw new Error(`bad type: ${line}`)
        families.set(name, { name, type: rest as Family['type'], help: helps.get(name) ?? '', samples: [] })
      }
      continue
    }
    const match = SAMPLE.exec(line)
    if (!match) throw new Error(`not a sample line: ${line}`)
    const family = familyOf(families, match[1])
    if (!family) throw new Error(`sample of an undeclared family: ${line}`)
    family.samples.push({
      name: match[1],
      labels: match[3] ? parseLabels(match[3], line) : {},
      value: parseValue(match[4], line),
    })
  }
  for (const family of families.values()) {
    if (family.type === 'histogram') checkHistogram(family)
    if (family.type === 'counter') {
      for (const sample of family.samples) {
        if (!(sample.value >= 0)) throw new Error(`negative counter ${family.name}`)
      }
    }
  }
  return families
}

/** Per label set: buckets rise with `le`, the +Inf bucket equals `_count`. */
function checkHistogram(family: Family) {
  const series = new Map<string, { buckets: Array<[number, number]>; count?: number }>()
  for (const sample of family.samples) {
    const { le, ...rest } = sample.labels
    const key = JSON.stringify(Object.entries(rest).sort())
    const entry = series.get(key) ?? { buckets: [] }
    series.set(key, entry)
    if (sample.name.endsWith('_bucket')) entry.buckets.push([parseValue(le, family.name), sample.value])
    if (sample.name.endsWith('_count')) entry.count = sample.value
  }
  for (const { buckets, count } of series.values()) {
    for (let i = 1; i < buckets.length; i++) {
      if (buckets[i][0] <= buckets[i - 1][0] || buckets[i][1] < buckets[i - 1][1]) {
        throw new Error(`${family.name}: buckets out of order`)
      }
    }
    const last = buckets[buckets.length - 1]
    if (!last || last[0] !== Infinity || last[1] !== count) throw new Error(`${family.name}: +Inf bucket ≠ count`)
  }
}

/** The value of the one sample of `name` whose labels include `labels`; undefined when none. */
export function valueOf(
  families: Map<string, Family>,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  for (const family of families.values()) {
    for (const sample of family.samples) {
      if (sample.name !== name) continue
      if (Object.entries(labels).every(([k, v]) => sample.labels[k] === v)) return sample.value
    }
  }
  return undefined
}
