import { useState } from 'preact/hooks'
import { get } from '../../../console/src/api'
import { RangeSwitch, rangeQuery, type Range } from '../../../console/src/analytics/range'
import { DailyChart } from '../../../console/src/analytics/series'
import { crashTitle } from './crash-occurrence'
import type { DailyResponse } from '../../../console/src/types'
import type { CrashGroupView, CrashStats } from '../../../console/src/types'
import { Loading, num, PagedTable, SelectField, Table, Time, Title, useLoad, usePaged } from '../../../console/src/ui'

const STATUSES = ['', 'OPEN', 'RESOLVED', 'IGNORED'] as const
const rate = (r: number | null) => (r === null ? '—' : `${(r * 100).toFixed(2)} %`)

/** Crash-free sessions per day, for every version or the one picked. */
function Trend({ versions }: { versions: string[] }) {
  const [range, setRange] = useState<Range>(30)
  const [version, setVersion] = useState('')
  const query = rangeQuery(range, { appVersion: version })
  const daily = useLoad(
    () => get<DailyResponse>('/analytics/daily', { ...query, metrics: 'crashFreeRate,sessions,crashes' }),
    [range, version],
  )
  const options: Array<readonly [string, string]> = [['', 'every version'], ...versions.map((v) => [v, v] as const)]
  return (
    <section aria-labelledby="trend-title">
      <h2 id="trend-title">Per day</h2>
      <div class="filters">
        <SelectField label="App version" value={version} options={options} onValue={setVersion} />
        <RangeSwitch value={range} onValue={setRange} />
      </div>
      <Loading loaded={daily} />
      {daily.data && (
        <div class="charts">
          <DailyChart daily={daily.data} metric="crashFreeRate" title="Crash-free sessions" query={query} />
          <DailyChart daily={daily.data} metric="sessions" title="Sessions" query={query} kind="bars" />
          <DailyChart daily={daily.data} metric="crashes" title="Crashes" query={query} kind="bars" />
        </div>
      )}
    </section>
  )
}

export default function Crashes() {
  const [status, setStatus] = useState<(typeof STATUSES)[number]>('OPEN')
  const [sort, setSort] = useState<'lastSeen' | 'count'>('lastSeen')
  const paged = usePaged<CrashGroupView>('/crash-reports/groups', { status, sort })
  const stats = useLoad(() => get<CrashStats>('/crash-reports/stats'), [])
  return (
    <>
      <Title>Crashes</Title>
      <Loading loaded={stats} />
      {stats.data && (
        <section class="panel" aria-label="Crash-free sessions">
          <p>
            Crash-free sessions: <strong>{rate(stats.data.crashFreeRate)}</strong> ({num(stats.data.crashedSessions)} of{' '}
            {num(stats.data.sessions)} crashed)
          </p>
          <Table
            items={stats.data.versions}
            empty="No sessions reported yet."
            caption="Per version"
            columns={[
              { label: 'Version', render: (v) => v.appVersion },
              { label: 'Sessions', render: (v) => num(v.sessions), numeric: true },
              { label: 'Crashed', render: (v) => num(v.crashedSessions), numeric: true },
              { label: 'Crash-free', render: (v) => rate(v.crashFreeRate), numeric: true },
            ]}
          />
        </section>
      )}
      <Trend versions={stats.data?.versions.map((v) => v.appVersion) ?? []} />
      <h2>Groups</h2>
      <div class="filters">
        <SelectField label="Status" value={status} options={STATUSES} onValue={setStatus} />
        <SelectField
          label="Sort"
          value={sort}
          options={
            [
              ['lastSeen', 'last seen'],
              ['count', 'occurrences'],
            ] as const
          }
          onValue={setSort}
        />
      </div>
      <PagedTable
        paged={paged}
        caption="Crash groups"
        empty="No crash groups."
        columns={[
          {
            label: 'Message',
            render: (g) => <a href={`#/crashes/${g.id}`}>{crashTitle(g)}</a>,
          },
          { label: 'Type', render: (g) => g.type },
          { label: 'Status', render: (g) => g.status },
          { label: 'Occurrences', render: (g) => num(g.occurrences), numeric: true },
          { label: 'Players', render: (g) => num(g.affectedUsers), numeric: true },
          { label: 'Last version', render: (g) => g.lastAppVersion },
          { label: 'Last seen', render: (g) => <Time iso={g.lastSeen} /> },
        ]}
      />
    </>
  )
}
