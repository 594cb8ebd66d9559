// A board's charts: how its current period's scores are spread, and how many scores came in per day.
import { useMemo, useState } from 'preact/hooks'
import { enc, get } from '../../../console/src/api'
import { RangeSwitch, rangeQuery, type Range } from '../../../console/src/analytics/range'
import { DailyChart } from '../../../console/src/analytics/series'
import type { DailyResponse, HistogramResponse } from '../../../console/src/types'
import { Chart } from '../../../console/src/charts/chart'
import { formatCompact, formatValue } from '../../../console/src/charts/spec'
import { Loading, useLoad } from '../../../console/src/ui'

const bucketName = (b: { from: number; to: number }, format: (n: number) => string = formatValue) =>
  b.from === b.to ? format(b.from) : `${format(b.from)}–${format(b.to)}`

function histogramSummary(h: HistogramResponse): string {
  const total = h.buckets.reduce((sum, b) => sum + b.count, 0)
  if (total === 0 || h.min === null || h.max === null) return `No scores in the current period (${h.period}).`
  const top = h.buckets.reduce((a, b) => (b.count > a.count ? b : a))
  return (
    `${formatValue(total)} scores in the current period (${h.period}), from ${formatValue(h.min)} to ` +
    `${formatValue(h.max)}; the most, ${formatValue(top.count)}, in ${bucketName(top)}.`
  )
}

function Histogram({ histogram }: { histogram: HistogramResponse }) {
  const labels = histogram.buckets.map((b) => bucketName(b))
  const spec = useMemo(
    () => ({
      label: 'Scores',
      x: histogram.buckets.map((_, i) => i),
      // The axis names buckets in compact numbers (1K–1M); the table below keeps them exact.
      xLabels: histogram.buckets.map((b) => bucketName(b, formatCompact)),
      values: histogram.buckets.map((b) => b.count),
      kind: 'bars' as const,
    }),
    [histogram],
  )
  if (histogram.buckets.length === 0)
    return <p class="muted">No scores in the current period ({histogram.period}): nothing to spread.</p>
  return (
    <Chart
      id="histogram"
      title="Score distribution"
      summary={histogramSummary(histogram)}
      spec={spec}
      columns={['Scores', 'Entries']}
      rows={labels}
    />
  )
}

export function BoardCharts({ boardKey }: { boardKey: string }) {
  const [range, setRange] = useState<Range>(30)
  const query = rangeQuery(range, { leaderboardKey: boardKey })
  const histogram = useLoad(
    () => get<HistogramResponse>(`/leaderboards/${enc(boardKey)}/histogram`, { buckets: 20 }),
    [boardKey],
  )
  const daily = useLoad(
    () => get<DailyResponse>('/analytics/daily', { ...query, metrics: 'submits' }),
    [boardKey, range],
  )
  return (
    <section aria-labelledby="board-charts-title">
      <div class="section-head">
        <h2 id="board-charts-title">Scores at a glance</h2>
        <RangeSwitch value={range} onValue={setRange} />
      </div>
      <div class="charts">
        <div>
          <Loading loaded={histogram} />
          {histogram.data && <Histogram histogram={histogram.data} />}
        </div>
        <div>
          <Loading loaded={daily} />
          {daily.data && (
            <DailyChart daily={daily.data} metric="submits" title="Score submits" query={query} kind="bars" />
          )}
        </div>
      </div>
    </section>
  )
}
