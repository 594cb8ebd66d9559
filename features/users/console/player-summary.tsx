// The head of a player's page: what an operator asks first, from the account and its export.
import type { AdminUser, UserExport } from '../../../console/src/types'
import { Time } from '../../../console/src/ui'

/** The latest moment anything of this player was recorded (a sign-in, a save, a score, a crash session…). */
function lastSeen(data: UserExport): string | null {
  const times = [
    data.account.createdAt,
    ...data.sessions.flatMap((s) => [s.createdAt, s.refreshUsedAt]),
    ...data.crashSessions.map((s) => s.createdAt),
    ...data.crashReports.map((r) => r.createdAt),
    ...data.leaderboardEntries.map((e) => e.reachedAt),
    ...data.runs.map((r) => r.issuedAt),
    ...data.feedback.map((f) => f.createdAt),
    ...data.logs.map((l) => l.createdAt),
    ...data.giftCodeRedemptions.map((r) => r.redeemedAt),
    ...data.valueHistory.map((v) => v.createdAt),
    data.cloudSave?.updatedAt ?? null,
  ].filter((t): t is string => !!t)
  return times.reduce<string | null>(
    (latest, t) => (latest === null || Date.parse(t) > Date.parse(latest) ? t : latest),
    null,
  )
}

export function PlayerSummary({ user, data }: { user: AdminUser; data: UserExport | undefined }) {
  const latestCrashSession = data?.crashSessions.reduce<UserExport['crashSessions'][number] | null>(
    (latest, s) => (latest === null || Date.parse(s.createdAt) > Date.parse(latest.createdAt) ? s : latest),
    null,
  )
  const crashed = data?.crashSessions.filter((s) => s.crashed).length ?? 0
  const seen = data ? lastSeen(data) : null
  return (
    <section class="panel" aria-label="Summary">
      <dl class="summary">
        <div>
          <dt>Status</dt>
          <dd>{user.banned ? <span class="badge bad">banned</span> : <span class="badge good">active</span>}</dd>
        </div>
        <div>
          <dt title="The latest sign-in, save, score, run, crash session, feedback or log of this player">Last seen</dt>
          <dd>{data ? <Time iso={seen} /> : '…'}</dd>
        </div>
        <div>
          <dt>Platform</dt>
          <dd>{data ? (latestCrashSession?.platform ?? '—') : '…'}</dd>
        </div>
        <div>
          <dt>App version</dt>
          <dd>{data ? (latestCrashSession?.appVersion ?? '—') : '…'}</dd>
        </div>
        <div>
          <dt>Sign-in sessions</dt>
          <dd>
            {user.activeSessions} active{data ? ` of ${data.sessions.length}` : ''}
          </dd>
        </div>
        <div>
          <dt>Game sessions</dt>
          <dd>{data ? `${data.crashSessions.length}, ${crashed} crashed` : '…'}</dd>
        </div>
        <div>
          <dt>Crashes</dt>
          <dd>{data ? data.crashReports.length : '…'}</dd>
        </div>
        <div>
          <dt>Signed up</dt>
          <dd>
            <Time iso={user.createdAt} />
          </dd>
        </div>
      </dl>
      {data && !latestCrashSession && (
        <p class="muted small">Platform and app version come from crash-reporting sessions: this player has none.</p>
      )}
    </section>
  )
}
