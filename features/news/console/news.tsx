import { useState } from 'preact/hooks'
import { api } from '../../../console/src/api'
import { ActionForm, deleteRow, ListPage, RowActions, type FormProps } from '../../../console/src/list'
import type { AdminNews as News } from '../../../console/src/types'
import { TextArea, TextField, Time } from '../../../console/src/ui'

function NewsForm({ item, done }: FormProps<News>) {
  const [title, setTitle] = useState(item?.title ?? '')
  const [message, setMessage] = useState(item?.message ?? '')
  const [languageCode, setLanguage] = useState(item?.languageCode ?? 'en')
  const [releaseDate, setRelease] = useState(item?.releaseDate ?? '')
  return (
    <ActionForm
      label={item ? 'Edit news' : 'New news'}
      onDone={done}
      save={() =>
        api(item ? 'PUT' : 'POST', item ? `/news/${item.id}` : '/news', {
          title,
          message,
          languageCode,
          ...(releaseDate.trim() && { releaseDate: new Date(releaseDate.trim()).toISOString() }),
        })
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
    </ActionForm>
  )
}

export default function NewsPage() {
  const [languageCode, setLanguage] = useState('')
  return (
    <ListPage<News>
      title="News"
      path="/news"
      query={{ languageCode: languageCode.trim() }}
      empty="No news yet."
      create={{ label: 'New news', form: (props) => <NewsForm {...props} /> }}
      keyOf={(n) => n.id}
      filters={<TextField label="Language filter" value={languageCode} onValue={setLanguage} type="search" />}
      columns={(list) => [
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
            <RowActions
              name={n.title}
              onEdit={() => list.edit(n)}
              onDelete={() => list.act(deleteRow(`/news/${n.id}`))}
            />
          ),
        },
      ]}
    />
  )
}
