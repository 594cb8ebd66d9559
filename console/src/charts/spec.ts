// What a chart shows, independent of the library that draws it, and the words that say the same for
// a reader who cannot see the canvas.

export interface ChartSpec {
  /** The series' name: "Active players". */
  label: string
  /** Time series: UTC midnights in seconds. Categories (histogram buckets): 0, 1, 2… with xLabels. */
  x: number[]
  values: Array<number | null>
  /** Category names on the x axis (short: drawn under bars); absent for a time series. */
  xLabels?: string[]
  kind: 'line' | 'bars'
  /** Values are shares 0–1, shown as percentages. */
  percent?: boolean
  height?: number
}

/** `YYYY-MM-DD` → seconds since the epoch at that UTC midnight. */
export const daySeconds = (day: string) => Date.parse(`${day}T00:00:00Z`) / 1000

export function formatValue(value: number | null, percent = false): string {
  if (value === null) return '—'
  return percent ? `${(value * 100).toFixed(2)} %` : value.toLocaleString('en')
}

const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 })

/** A number short enough for an axis label: 950, 1.2K, 3.4M. */
export const formatCompact = (value: number) => compact.format(value)

/** One line that says what a daily series shows: its total or average, its peak and its latest day. */
export function seriesSummary(days: string[], values: Array<number | null>, percent = false): string {
  const known = values.map((v, i) => [v, days[i]] as const).filter((p): p is readonly [number, string] => p[0] !== null)
  if (known.length === 0) return `No data in the ${days.length} days from ${days[0]} to ${days[days.length - 1]}.`
  const [lastValue, lastDay] = known[known.length - 1]
  if (percent) {
    const [low, lowDay] = known.reduce((a, b) => (b[0] < a[0] ? b : a))
    const mean = known.reduce((sum, [v]) => sum + v, 0) / known.length
    return (
      `Average ${formatValue(mean, true)} over ${known.length} of ${days.length} days with data; ` +
      `lowest ${formatValue(low, true)} on ${lowDay}; latest ${formatValue(lastValue, true)} on ${lastDay}.`
    )
  }
  const total = known.reduce((sum, [v]) => sum + v, 0)
  const [high, highDay] = known.reduce((a, b) => (b[0] > a[0] ? b : a))
  return (
    `Total ${formatValue(total)} over ${days.length} days (${days[0]} to ${days[days.length - 1]}); ` +
    `highest ${formatValue(high)} on ${highDay}; latest ${formatValue(lastValue)} on ${lastDay}.`
  )
}
