// The player's crash reports and game sessions, from the same export the summary counts them in, so
// the tab lists exactly what the summary's "Crashes" and "Game sessions" say.
import type { UserExport } from '../../../console/src/types'
import { Loading, Table, Time, type Loaded } from '../../../console/src/ui'
import { crashTitle } from '../../crash-reporting/console/crash-occurrence'

export function PlayerCrashes({ loaded }: { loaded: Loaded<UserExport> }) {
  const data = loaded.data
  const newestFirst = <T extends { createdAt: string }>(rows: T[]) =>
    [...rows].sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt))
  return (
    <>
      <Loading loaded={loaded} />
      {data && (
        <>
          <h2>Crash reports</h2>
          <Table
            items={newestFirst(data.crashReports)}
            caption="Crash reports"
            empty="No crash reports from this player."
            columns={[
              {
                label: 'Message',
                render: (r) => <a href={`#/crashes/${r.groupId}`}>{crashTitle(r)}</a>,
              },
              { label: 'Type', render: (r) => r.type },
              { label: 'App version', render: (r) => r.appVersion || '—' },
              { label: 'Device', render: (r) => [r.deviceModel, r.os].filter(Boolean).join(' · ') || '—' },
              { label: 'At', render: (r) => <Time iso={r.createdAt} /> },
            ]}
          />
          <h2>Game sessions</h2>
          <Table
            items={newestFirst(data.crashSessions)}
            caption="Game sessions"
            empty="No game sessions reported for this player."
            columns={[
              { label: 'Session', render: (s) => <code>{s.sessionId}</code> },
              { label: 'App version', render: (s) => s.appVersion || '—' },
              { label: 'Platform', render: (s) => s.platform || '—' },
              {
                label: 'Crashed',
                render: (s) => (s.crashed ? <span class="badge bad">crashed</span> : <span class="muted">no</span>),
              },
              { label: 'Started', render: (s) => <Time iso={s.createdAt} /> },
            ]}
          />
        </>
      )}
    </>
  )
}
