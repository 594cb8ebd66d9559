import { useState } from 'preact/hooks'
import { ListPage } from '../../../console/src/list'
import type { AdminUser } from '../../../console/src/types'
import { num, TextField, Time } from '../../../console/src/ui'

export default function Players() {
  const [text, setText] = useState('')
  const [query, setQuery] = useState('')
  return (
    <ListPage<AdminUser>
      title="Players"
      path="/users"
      query={{ query }}
      empty={query ? `No player matches “${query}”.` : 'No players yet.'}
      columns={() => [
        { label: 'Name', render: (u) => <a href={`#/players/${u.userId}`}>{u.username}</a> },
        { label: 'E-mail', render: (u) => u.email ?? <span class="muted">—</span> },
        {
          label: 'Status',
          render: (u) => (u.banned ? <span class="badge bad">banned</span> : u.isAnonymous ? 'anonymous' : 'account'),
        },
        { label: 'Sessions', render: (u) => num(u.activeSessions), numeric: true },
        { label: 'Signed up', render: (u) => <Time iso={u.createdAt} /> },
      ]}
    >
      <form
        class="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault()
          setQuery(text.trim())
        }}
      >
        <TextField label="Search" value={text} onValue={setText} placeholder="Name, e-mail or id" type="search" />
        <button type="submit">Search</button>
      </form>
    </ListPage>
  )
}
