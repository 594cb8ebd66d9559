import { useState } from 'preact/hooks'
import { api } from '../api'
import {
  ConfirmButton,
  ErrorNote,
  Notice,
  PagedTable,
  SaveForm,
  TextArea,
  TextField,
  Time,
  Title,
  useAction,
  usePaged,
  WriteButton,
} from '../ui'

interface News {
  id: string
  title: string
  message: string
  languageCode: string
  releaseDate: string
  scheduled: boolean
}

function NewsForm({ item, onSaved }: { item?: News; onSaved: () => void }) {
  const [title, setTitle] = useState(item?.title ?? '')
  const [message, setMessage] = useState(item?.message ?? '')
  const [languageCode, setLanguage] = useState(item?.languageCode ?? 'en')
  const [releaseDate, setRelease] = useState(item?.releaseDate ?? '')
  const action = useAction()
  return (
    <>
      <SaveForm
        label={item ? 'Edit news' : 'New news'}
        busy={action.busy}
        onSave={() =>
          action
            .run(
              () =>
                api(item ? 'PUT' : 'POST', item ? `/news/${item.id}` : '/news', {
                  title,
                  message,
                  languageCode,
                  ...(releaseDate.trim() && { releaseDate: new Date(releaseDate.trim()).toISOString() }),
                }),
              'Saved',
            )
            .then((ok) => ok && onSaved())
        }
      >
        <TextField label="Title" value={title} onValue={setTitle} required />
        <TextField label="Language code" value={languageCode} onValue={setLanguage} required />
        <TextField
          label="Release date"
          value={releaseDate}
          onValue={setRelease}
          hint="UTC, ISO 8601; empty = now; in the future = scheduled"
        />
        <TextArea label="Message" value={message} onValue={setMessage} />
      </SaveForm>
      <ErrorNote error={action.error} />
      <Notice text={action.notice} />
    </>
  )
}

export default function NewsPage() {
  const [languageCode, setLanguage] = useState('')
  const paged = usePaged<News>('/news', { languageCode: languageCode.trim() })
  const [editing, setEditing] = useState<News | 'new' | null>(null)
  const action = useAction()
  return (
    <>
      <Title actions={<WriteButton onClick={() => setEditing(editing === 'new' ? null : 'new')}>New news</WriteButton>}>
        News
      </Title>
      {editing && (
        <NewsForm
          key={editing === 'new' ? 'new' : editing.id}
          item={editing === 'new' ? undefined : editing}
          onSaved={() => {
            setEditing(null)
            paged.reload()
          }}
        />
      )}
      <div class="filters">
        <TextField label="Language filter" value={languageCode} onValue={setLanguage} type="search" />
      </div>
      <ErrorNote error={action.error} />
      <PagedTable
        paged={paged}
        caption="News"
        empty="No news yet."
        columns={[
          { label: 'Title', render: (n) => n.title },
          { label: 'Language', render: (n) => n.languageCode },
          {
            label: 'Release',
            render: (n) => (
              <>
                <Time iso={n.releaseDate} /> {n.scheduled && <span class="badge">scheduled</span>}
              </>
            ),
          },
          { label: 'Message', render: (n) => n.message },
          {
            label: 'Actions',
            render: (n) => (
              <span class="actions">
                <WriteButton onClick={() => setEditing(n)} aria-label={`Edit ${n.title}`}>
                  Edit
                </WriteButton>
                <ConfirmButton
                  label={`Delete ${n.title}`}
                  confirmLabel="Confirm delete"
                  onConfirm={() => action.run(() => api('DELETE', `/news/${n.id}`)).then(paged.reload)}
                />
              </span>
            ),
          },
        ]}
      />
    </>
  )
}
