import { get } from '../api'
import type { AdminEmail, AdminRun, AdminUser, CrashStats, Page } from '../types'
import { Loading, Title, useLoad } from '../ui'

const SAMPLE = 100

/** "N" when the page held everything, "N+" when the list goes on past the sample. */
const counted = (n: number, more: boolean) => `${n}${more ? '+' : ''}`

function startOfTodayUtc(now = new Date()): number {
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
}

export default function Overview() {
  const loaded = useLoad(async () => {
    const [users, runs, pending, failed, crashes] = await Promise.all([
      get<Page<AdminUser>>('/users', { limit: SAMPLE }),
      get<Page<AdminRun>>('/validated-actions/runs', { sus: true, limit: SAMPLE }),
      get<Page<AdminEmail>>('/emails', { status: 'pending', limit: SAMPLE }),
      get<Page<AdminEmail>>('/emails', { status: 'failed', limit: SAMPLE }),
      get<CrashStats>('/crash-reports/stats'),
    ])
    const today = startOfTodayUtc()
    // The user list is newest first: the sign-ups of today are a prefix of it.
    const signUps = users.items.filter((u) => Date.parse(u.createdAt) >= today).length
    const allToday = signUps === users.items.length && users.nextCursor !== null
    const open = runs.items.filter((r) => r.review.verdict === null && r.outcome === 'ACCEPTED').length
    return { users, signUps, allToday, runs, open, pending, failed, crashes }
  }, [])
  const d = loaded.data
  return (
    <>
      <Title>Overview</Title>
      <Loading loaded={loaded} />
      {d && (
        <div class="cards">
          <a class="card" href="#/players">
            <div class="muted">Players</div>
            <div class="value">{counted(d.users.items.length, d.users.nextCursor !== null)}</div>
          </a>
          <a class="card" href="#/players">
            <div class="muted">Sign-ups today (UTC)</div>
            <div class="value">{counted(d.signUps, d.allToday)}</div>
          </a>
          <a class="card" href="#/runs">
            <div class="muted">Open run reviews</div>
            <div class="value">{counted(d.open, d.runs.nextCursor !== null)}</div>
          </a>
          <a class="card" href="#/crashes">
            <div class="muted">Crash-free sessions</div>
            <div class="value">
              {d.crashes.crashFreeRate === null ? '—' : `${(d.crashes.crashFreeRate * 100).toFixed(2)} %`}
            </div>
            <div class="muted small">
              {d.crashes.crashedSessions} of {d.crashes.sessions} sessions crashed
            </div>
          </a>
          <a class="card" href="#/email">
            <div class="muted">E-mail queue</div>
            <div class="value">{counted(d.pending.items.length, d.pending.nextCursor !== null)}</div>
            <div class="muted small">
              pending · {counted(d.failed.items.length, d.failed.nextCursor !== null)} failed
            </div>
          </a>
        </div>
      )}
      <p class="muted small">
        Counts above {SAMPLE} show as “{SAMPLE}+”.
      </p>
    </>
  )
}
