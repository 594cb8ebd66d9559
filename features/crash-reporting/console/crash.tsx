import { useState } from 'preact/hooks'
import { api, get } from '../../../console/src/api'
import type { PageProps } from '../../../console/src/page'
import { ActionForm } from '../../../console/src/list'
import type { CrashGroupDetail as Detail, CrashGroupUser } from '../../../console/src/types'
import {
  Loading,
  num,
  PagedTable,
  SelectField,
  Table,
  TextField,
  Time,
  Title,
  useLoad,
  usePaged,
} from '../../../console/src/ui'
import { crashTitle, Occurrence, PlayerLink } from './crash-occurrence'

function StatusForm({ group, onSaved }: { group: Detail; onSaved: () => void }) {
  const [status, setStatus] = useState(group.status)
  const [resolvedInVersion, setVersion] = useState(group.resolvedInVersion ?? '')
  return (
    <ActionForm
      label="Status"
      onDone={onSaved}
      save={() =>
        api('PATCH', `/crash-reports/groups/${group.id}`, {
          status,
          ...(status === 'RESOLVED' && resolvedInVersion.trim() && { resolvedInVersion: resolvedInVersion.trim() }),
        })
      }
    >
      <SelectField
        label="Status"
        value={status}
        options={['OPEN', 'RESOLVED', 'IGNORED'] as const}
        onValue={setStatus}
      />
      <TextField
        label="Resolved in version"
        value={resolvedInVersion}
        onValue={setVersion}
        hint="A crash seen again in a later version reopens the group (a regression)"
      />
    </ActionForm>
  )
}

/** The page's title: the crash's message (its first line, shortened), or its type when it has none. */
function heading(group: Detail): string {
  const line = group.message.trim() ? crashTitle(group) : group.type
  return line.length > 120 ? `${line.slice(0, 119)}…` : line
}

function Facts({ group }: { group: Detail }) {
  return (
    <section class="panel" aria-label="Crash group">
      <dl class="facts">
        <dt>Type</dt>
        <dd>{group.type}</dd>
        <dt>Message</dt>
        <dd class="crash-message">{group.message || '—'}</dd>
        <dt>Status</dt>
        <dd>
          {group.status}
          {group.resolvedInVersion && ` in ${group.resolvedInVersion}`}
        </dd>
        <dt>Occurrences</dt>
        <dd>{num(group.occurrences)}</dd>
        <dt>Players</dt>
        <dd>{num(group.affectedUsers)}</dd>
        <dt>Versions</dt>
        <dd>{group.affectedVersions.join(', ') || '—'}</dd>
        <dt>First seen</dt>
        <dd>
          <Time iso={group.firstSeen} />
        </dd>
        <dt>Last seen</dt>
        <dd>
          <Time iso={group.lastSeen} /> {group.lastAppVersion && `(${group.lastAppVersion})`}
        </dd>
        <dt>Fingerprint</dt>
        <dd>
          <code class="wrap">{group.fingerprint}</code>
        </dd>
      </dl>
    </section>
  )
}

export default function Crash({ params }: PageProps) {
  const loaded = useLoad(() => get<Detail>(`/crash-reports/groups/${params.groupId}`), [params.groupId])
  const users = usePaged<CrashGroupUser>(`/crash-reports/groups/${params.groupId}/users`, {})
  const [shown, setShown] = useState(0)
  const group = loaded.data
  const names = new Map(
    (users.data?.items ?? []).flatMap((u) => (u.userId && u.username ? [[u.userId, u.username]] : [])),
  )
  const report = group?.recentOccurrences[shown] ?? group?.recentOccurrences[0]
  return (
    <>
      <Title>{group ? heading(group) : 'Crash group'}</Title>
      <p>
        <a href="#/crashes">← Crashes</a>
      </p>
      <Loading loaded={loaded} />
      {group && (
        <>
          <Facts group={group} />
          <StatusForm group={group} onSaved={loaded.reload} />
          <h2>Latest occurrences</h2>
          {report ? <Occurrence report={report} names={names} /> : <p class="muted">No report is stored.</p>}
          {group.recentOccurrences.length > 1 && (
            <Table
              items={group.recentOccurrences}
              caption="Latest occurrences"
              columns={[
                { label: 'At', render: (r) => <Time iso={r.createdAt} /> },
                { label: 'App version', render: (r) => r.appVersion },
                { label: 'Device', render: (r) => [r.deviceModel, r.os].filter(Boolean).join(' · ') },
                {
                  label: 'Player',
                  render: (r) => (
                    <PlayerLink
                      userId={r.linkedUserId}
                      name={r.linkedUserId ? names.get(r.linkedUserId) : null}
                      fallback={r.userId}
                    />
                  ),
                },
                {
                  label: 'Trace',
                  render: (r) =>
                    r === report ? (
                      <span class="muted">shown above</span>
                    ) : (
                      <button
                        type="button"
                        class="small"
                        onClick={() => setShown(group.recentOccurrences.indexOf(r))}
                        aria-label={`Show the report of ${r.createdAt}`}
                      >
                        Show
                      </button>
                    ),
                },
              ]}
            />
          )}
          <h2>Versions</h2>
          <Table
            items={group.versions}
            caption="Versions"
            columns={[
              { label: 'App version', render: (v) => v.appVersion },
              { label: 'Occurrences', render: (v) => num(v.occurrences), numeric: true },
              { label: 'First seen', render: (v) => <Time iso={v.firstSeen} /> },
              { label: 'Last seen', render: (v) => <Time iso={v.lastSeen} /> },
            ]}
          />
          <h2>Affected players</h2>
          <PagedTable
            paged={users}
            caption="Affected players"
            empty="No player named in these reports."
            columns={[
              {
                label: 'Player',
                render: (u) => <PlayerLink userId={u.userId} name={u.username} fallback={u.userKey} />,
              },
              { label: 'First seen', render: (u) => <Time iso={u.firstSeen} /> },
              { label: 'Last seen', render: (u) => <Time iso={u.lastSeen} /> },
            ]}
          />
        </>
      )}
    </>
  )
}
