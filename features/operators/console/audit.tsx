import { useState } from 'preact/hooks'
import { ListPage } from '../../../console/src/list'
import type { AuditEntry } from '../../../console/src/types'
import { TextField, Time } from '../../../console/src/ui'

/** A `datetime-local` value read as UTC (the console shows every time in UTC), or undefined. */
function utcInput(value: string): string | undefined {
  if (!value) return undefined
  const date = new Date(`${value.length === 16 ? `${value}:00` : value}Z`)
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString()
}

const compact = (value: unknown) => (value === null || value === undefined ? '' : JSON.stringify(value))

export default function Audit() {
  const [actor, setActor] = useState('')
  const [action, setAction] = useState('')
  const [from, setFrom] = useState('')
  const [to, setTo] = useState('')
  return (
    <ListPage<AuditEntry>
      title="Audit log"
      path="/audit"
      query={{ actor: actor.trim(), action: action.trim(), from: utcInput(from), to: utcInput(to) }}
      empty="No entries match."
      filters={
        <>
          <TextField label="Actor" value={actor} onValue={setActor} type="search" hint="Operator, admin-key or cli" />
          <TextField
            label="Action"
            value={action}
            onValue={setAction}
            type="search"
            hint="sign-in, sign-in-failed, or a route: POST /operators"
          />
          <TextField label="From" value={from} onValue={setFrom} type="datetime-local" step={1} hint="UTC" />
          <TextField label="To" value={to} onValue={setTo} type="datetime-local" step={1} hint="UTC, exclusive" />
        </>
      }
      columns={() => [
        { label: 'At', render: (e) => <Time iso={e.at} /> },
        {
          label: 'Actor',
          render: (e) =>
            e.actorVerified === false ? (
              <span title="The name as sent: no credential proved it">
                {e.actor} <span class="muted">(unverified)</span>
              </span>
            ) : (
              `${e.actor}${e.role ? ` (${e.role})` : ''}`
            ),
        },
        { label: 'Action', render: (e) => <code>{e.action}</code> },
        {
          label: 'Status',
          render: (e) => <span class={`badge ${e.status < 400 ? 'good' : 'bad'}`}>{e.status}</span>,
        },
        { label: 'Target', render: (e) => <code class="cell-json">{compact(e.target)}</code> },
        { label: 'Changes', render: (e) => <code class="cell-json">{compact(e.changes)}</code> },
        { label: 'Address', render: (e) => e.address },
      ]}
    />
  )
}
