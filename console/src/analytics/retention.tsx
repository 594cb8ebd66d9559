// Retention: one row per sign-up cohort, the share of it active 1, 7 and 30 days later, each cell
// shaded by its share (a heatmap that is also a plain table for a screen reader).
import { download, get, withQuery } from '../api'
import { ErrorNote, Loading, useAction, useLoad } from '../ui'
import { lastDays, type Range } from './range'
import type { RetentionResponse } from '../types'

const DAYS = ['d1', 'd7', 'd30'] as const

function Share({ value, size }: { value: number | null; size: number }) {
  if (value === null) return <td class="heat muted">{size === 0 ? '—' : 'ahead'}</td>
  // The shade is set through the CSSOM (allowed by the console's CSP, unlike a style attribute).
  return (
    <td class="heat" style={{ '--share': String(value) }} data-share={value}>
      {`${(value * 100).toFixed(1)} %`}
    </td>
  )
}

export function Retention({ range }: { range: Range }) {
  const query = lastDays(range)
  const loaded = useLoad(() => get<RetentionResponse>('/analytics/retention', query), [range])
  const action = useAction()
  const cohorts = loaded.data?.cohorts ?? []
  const shown = cohorts.filter((c) => c.size > 0)
  return (
    <section aria-labelledby="retention-title" class="retention">
      <div class="section-head">
        <h2 id="retention-title">Retention</h2>
        <button
          type="button"
          class="small"
          disabled={action.busy}
          aria-label="Download CSV of retention"
          onClick={() =>
            action.run(() =>
              download(withQuery('/analytics/retention', query), `retention-${query.from}-${query.to}.csv`, 'text/csv'),
            )
          }
        >
          Download CSV
        </button>
      </div>
      <p class="muted small">
        Of the players who signed up on a day, the share active 1, 7 and 30 days later (UTC days). Cohorts without
        sign-ups are left out.
      </p>
      <ErrorNote error={action.error} />
      <Loading loaded={loaded} />
      {loaded.data && shown.length === 0 && <p class="muted">No sign-ups in these {range} days.</p>}
      {shown.length > 0 && (
        <div class="table-wrap retention-table">
          <table>
            <caption class="sr-only">Retention by sign-up day</caption>
            <thead>
              <tr>
                <th scope="col">Signed up</th>
                <th scope="col">Players</th>
                <th scope="col">Day 1</th>
                <th scope="col">Day 7</th>
                <th scope="col">Day 30</th>
              </tr>
            </thead>
            <tbody>
              {shown
                .slice()
                .reverse()
                .map((c) => (
                  <tr key={c.date} data-cohort={c.date}>
                    <th scope="row">{c.date}</th>
                    <td>{c.size.toLocaleString('en')}</td>
                    {DAYS.map((d) => (
                      <Share key={d} value={c[d]} size={c.size} />
                    ))}
                  </tr>
                ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}
