import { useState } from 'preact/hooks'
import { ListPage } from '../../../console/src/list'
import type { AdminUserLog as Log } from '../../../console/src/types'
import { SelectField, TextField, Time } from '../../../console/src/ui'
const TYPES = ['', 'INFO', 'WARN', 'ERROR'] as const

export default function UserLogs() {
  const [type, setType] = useState<(typeof TYPES)[number]>('')
  const [userId, setUserId] = useState('')
  return (
    <ListPage<Log>
      title="User logs"
      path="/user-logs"
      query={{ type, userId: userId.trim() }}
      empty="No logs."
      filters={
        <>
          <SelectField label="Type" value={type} options={TYPES} onValue={setType} />
          <TextField label="User id" value={userId} onValue={setUserId} type="search" />
        </>
      }
      columns={() => [
        { label: 'Type', render: (l) => l.type },
        { label: 'Message', render: (l) => l.message },
        { label: 'Error code', render: (l) => l.errorCode ?? '' },
        { label: 'Player', render: (l) => <a href={`#/players/${l.userId}`}>{l.userId.slice(0, 8)}</a> },
        { label: 'At', render: (l) => <Time iso={l.createdAt} /> },
      ]}
    />
  )
}
