import { useState } from 'preact/hooks'
import { api, enc } from '../api'
import {
  CheckField,
  ConfirmButton,
  ErrorNote,
  Notice,
  PagedTable,
  SaveForm,
  SelectField,
  TextField,
  Time,
  Title,
  useAction,
  usePaged,
  WriteButton,
} from '../ui'

interface Cosmetic {
  id: string
  type: 'avatar' | 'frame' | 'badge'
  name: string
  locked: boolean
  updatedAt: string
}
const TYPES = ['avatar', 'frame', 'badge'] as const

export default function Cosmetics() {
  const paged = usePaged<Cosmetic>('/cosmetics', {})
  const [open, setOpen] = useState(false)
  const [id, setId] = useState('')
  const [type, setType] = useState<Cosmetic['type']>('avatar')
  const [name, setName] = useState('')
  const [locked, setLocked] = useState(false)
  const action = useAction()
  const edit = (c: Cosmetic) => {
    setId(c.id)
    setType(c.type)
    setName(c.name)
    setLocked(c.locked)
    setOpen(true)
  }
  return (
    <>
      <Title actions={<WriteButton onClick={() => setOpen(!open)}>New cosmetic</WriteButton>}>Cosmetics</Title>
      {open && (
        <SaveForm
          label="Cosmetic"
          busy={action.busy}
          onSave={() =>
            action
              .run(() => api('PUT', `/cosmetics/${enc(id.trim())}`, { type, name, locked }), 'Saved')
              .then(paged.reload)
          }
        >
          <TextField label="Id" value={id} onValue={setId} required />
          <SelectField label="Type" value={type} options={TYPES} onValue={setType} />
          <TextField label="Name" value={name} onValue={setName} required />
          <CheckField label="Locked" checked={locked} onValue={setLocked} />
        </SaveForm>
      )}
      <ErrorNote error={action.error} />
      <Notice text={action.notice} />
      <PagedTable
        paged={paged}
        caption="Cosmetics"
        empty="The catalog is empty."
        columns={[
          { label: 'Id', render: (c) => <code>{c.id}</code> },
          { label: 'Type', render: (c) => c.type },
          { label: 'Name', render: (c) => c.name },
          { label: 'Locked', render: (c) => (c.locked ? 'locked (granted only)' : 'free') },
          { label: 'Updated', render: (c) => <Time iso={c.updatedAt} /> },
          {
            label: 'Actions',
            render: (c) => (
              <span class="actions">
                <WriteButton onClick={() => edit(c)} aria-label={`Edit ${c.id}`}>
                  Edit
                </WriteButton>
                <ConfirmButton
                  label={`Delete ${c.id}`}
                  confirmLabel="Confirm delete"
                  onConfirm={() => action.run(() => api('DELETE', `/cosmetics/${enc(c.id)}`)).then(paged.reload)}
                />
              </span>
            ),
          },
        ]}
      />
    </>
  )
}
