import { useState } from 'preact/hooks'
import { api, get } from '../../api'
import type { PageProps } from '../../page'
import { ActionForm } from '../../list'
import type { CrashGroupDetail as Detail } from '../../types'
import { Json, Loading, SelectField, TextField, Time, Title, useLoad } from '../../ui'

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

export default function Crash({ params }: PageProps) {
  const loaded = useLoad(() => get<Detail>(`/crash-reports/groups/${params.groupId}`), [params.groupId])
  const group = loaded.data
  return (
    <>
      <Title>{group ? group.type : 'Crash group'}</Title>
      <p>
        <a href="#/crashes">← Crashes</a>
      </p>
      <Loading loaded={loaded} />
      {group && (
        <>
          <section class="panel" aria-label="Crash group">
            <dl class="facts">
              <dt>Message</dt>
              <dd>{group.message}</dd>
              <dt>Status</dt>
              <dd>{group.status}</dd>
              <dt>Occurrences</dt>
              <dd>
                {group.occurrences} ({group.affectedUsers} players)
              </dd>
              <dt>First seen</dt>
              <dd>
                <Time iso={group.firstSeen} />
              </dd>
              <dt>Last seen</dt>
              <dd>
                <Time iso={group.lastSeen} />
              </dd>
            </dl>
          </section>
          <StatusForm group={group} onSaved={loaded.reload} />
          <h2>Versions</h2>
          <Json value={group.versions} />
          <h2>Recent occurrences</h2>
          <Json value={group.recentOccurrences} />
        </>
      )}
    </>
  )
}
