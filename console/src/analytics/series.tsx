// A daily series of GET /analytics/daily as a chart, its text alternative and its "Download CSV".
import { useMemo } from 'preact/hooks'
import { download, withQuery, type Query } from '../api'
import { Chart } from '../charts/chart'
import { daySeconds, seriesSummary } from '../charts/spec'
import { ErrorNote, useAction } from '../ui'
import type { DailyMetric, DailyResponse } from '../types'

/** Fetches the series as CSV (Accept: text/csv) with the operator's session and saves it as a file. */
export function CsvButton({ metric, query, label }: { metric: DailyMetric; query: Query; label: string }) {
  const action = useAction()
  const { from, to } = query
  return (
    <>
      <button
        type="button"
        class="small"
        disabled={action.busy}
        aria-label={`Download CSV of ${label.toLowerCase()}`}
        onClick={() =>
          action.run(() =>
            download(
              withQuery('/analytics/daily', { ...query, metrics: metric }),
              `${metric}-${from}-${to}.csv`,
              'text/csv',
            ),
          )
        }
      >
        Download CSV
      </button>
      <ErrorNote error={action.error} />
    </>
  )
}

export function DailyChart({
  daily,
  metric,
  title,
  query,
  kind = 'line',
}: {
  daily: DailyResponse
  metric: DailyMetric
  title: string
  /** The daily read's query (range and narrowing), for the CSV of the same numbers. */
  query: Query
  kind?: 'line' | 'bars'
}) {
  const percent = metric === 'crashFreeRate'
  const values = daily.series[metric] ?? daily.days.map(() => null)
  const spec = useMemo(
    () => ({ label: title, x: daily.days.map(daySeconds), values, kind, percent }),
    [daily, metric, title, kind],
  )
  return (
    <Chart
      id={metric}
      title={title}
      summary={seriesSummary(daily.days, values, percent)}
      spec={spec}
      columns={['Day (UTC)', title]}
      rows={daily.days}
      actions={<CsvButton metric={metric} query={query} label={title} />}
    />
  )
}
