import { useState } from 'preact/hooks'
import { ListPage } from '../../../console/src/list'
import type { AdminFeedback as Feedback } from '../../../console/src/types'
import { TextField, Time } from '../../../console/src/ui'

export default function FeedbackPage() {
  const [category, setCategory] = useState('')
  const [userId, setUserId] = useState('')
  return (
    <ListPage<Feedback>
      title="Feedback"
      path="/user-feedback"
      query={{ category: category.trim(), userId: userId.trim() }}
      empty="No feedback."
      filters={
        <>
          <TextField label="Category" value={category} onValue={setCategory} type="search" />
          <TextField label="User id" value={userId} onValue={setUserId} type="search" />
        </>
      }
      columns={() => [
        { label: 'Category', render: (f) => f.category },
        { label: 'Title', render: (f) => f.title },
        { label: 'Message', render: (f) => f.message },
        {
          label: 'Player',
          render: (f) =>
            f.userId ? (
              <a href={`#/players/${f.userId}`}>{f.playerName ?? f.userId}</a>
            ) : (
              <span class="muted">anonymous</span>
            ),
        },
        { label: 'E-mail', render: (f) => f.email ?? '' },
        { label: 'Device', render: (f) => f.deviceInfo ?? '' },
        { label: 'Sent', render: (f) => <Time iso={f.createdAt} /> },
      ]}
    />
  )
}
