import { useState } from 'preact/hooks'
import { get } from '../api'
import { RangeSwitch, rangeQuery, type Range } from '../analytics/range'
import { Retention } from '../analytics/retention'
import { DailyChart } from '../analytics/series'
import type { CountsResponse, DailyResponse } from '../types'
import { Loading, num as n, Title, useLoad } from '../ui'

function Counts({ counts }: { counts: CountsResponse }) {
  const kinds = counts.playersByKind
  return (
    <div class="cards" aria-label="Totals">
      <a class="card" href="#/players" data-count="players">
        <div class="muted">Players</div>
        <div class="value">{n(counts.players)}</div>
        <div class="muted small">
          {n(kinds.anonymous)} anonymous · {n(kinds.email)} e-mail · {n(kinds.apple)} Apple · {n(kinds.google)} Google ·{' '}
          {n(counts.bannedPlayers)} banned
        </div>
      </a>
      <a class="card" href="#/players" data-count="activeToday">
        <div class="muted">Active today (UTC)</div>
        <div class="value">{n(counts.activeToday)}</div>
      </a>
      <a class="card" href="#/leaderboards" data-count="entries">
        <div class="muted">Board entries</div>
        <div class="value">{n(counts.entries)}</div>
        <div class="muted small">
          on {n(counts.boards)} boards · {n(counts.saves)} cloud saves
        </div>
      </a>
      <a class="card" href="#/runs" data-count="pendingReviews">
        <div class="muted">Open run reviews</div>
        <div class="value">{n(counts.pendingReviews)}</div>
      </a>
      <a class="card" href="#/crashes" data-count="openCrashGroups">
        <div class="muted">Open crash groups</div>
        <div class="value">{n(counts.openCrashGroups)}</div>
      </a>
      <a class="card" href="#/email" data-count="emailsQueued">
        <div class="muted">E-mails queued</div>
        <div class="value">{n(counts.emailsQueued)}</div>
        <div class="muted small">pending or being sent</div>
      </a>
      <a class="card" href="#/feedback" data-count="feedback">
        <div class="muted">Feedback</div>
        <div class="value">{n(counts.feedback)}</div>
      </a>
      <a class="card" href="#/gift-codes" data-count="giftCodes">
        <div class="muted">Gift codes</div>
        <div class="value">{n(counts.giftCodes)}</div>
      </a>
    </div>
  )
}

const CHARTS = [
  { metric: 'active', title: 'Active players' },
  { metric: 'signups', title: 'Sign-ups' },
  { metric: 'crashFreeRate', title: 'Crash-free sessions' },
  { metric: 'submits', title: 'Score submits' },
] as const

export default function Overview() {
  const [range, setRange] = useState<Range>(30)
  const counts = useLoad(() => get<CountsResponse>('/analytics/counts'), [])
  const query = rangeQuery(range)
  const daily = useLoad(
    () => get<DailyResponse>('/analytics/daily', { ...query, metrics: CHARTS.map((c) => c.metric).join(',') }),
    [range],
  )
  return (
    <>
      <Title actions={<RangeSwitch value={range} onValue={setRange} />}>Overview</Title>
      <Loading loaded={counts} />
      {counts.data && <Counts counts={counts.data} />}
      <h2>
        Last {range} days <span class="muted small">(UTC)</span>
      </h2>
      <Loading loaded={daily} />
      {daily.data && (
        <div class="charts">
          {CHARTS.map((c) => (
            <DailyChart key={c.metric} daily={daily.data!} metric={c.metric} title={c.title} query={query} />
          ))}
        </div>
      )}
      <Retention range={range} />
    </>
  )
}
