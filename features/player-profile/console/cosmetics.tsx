import { useState } from 'preact/hooks'
import { api, enc } from '../../../console/src/api'
import { ActionForm, deleteRow, ListPage, RowActions, type FormProps } from '../../../console/src/list'
import type { AdminCosmetic as Cosmetic } from '../../../console/src/types'
import { CheckField, SelectField, TextField, Time } from '../../../console/src/ui'

const TYPES = ['avatar', 'frame', 'badge'] as const

function CosmeticForm({ item, done }: FormProps<Cosmetic>) {
  const [id, setId] = useState(item?.id ?? '')
  const [type, setType] = useState<Cosmetic['type']>(item?.type ?? 'avatar')
  const [name, setName] = useState(item?.name ?? '')
  const [locked, setLocked] = useState(item?.locked ?? false)
  return (
    <ActionForm
      label="Cosmetic"
      save={() => api('PUT', `/cosmetics/${enc(id.trim())}`, { type, name, locked })}
      onDone={done}
    >
      <TextField label="Id" value={id} onValue={setId} required />
      <SelectField label="Type" value={type} options={TYPES} onValue={setType} />
      <TextField label="Name" value={name} onValue={setName} required />
      <CheckField label="Locked" checked={locked} onValue={setLocked} />
    </ActionForm>
  )
}

export default function Cosmetics() {
  return (
    <ListPage<Cosmetic>
      title="Cosmetics"
      path="/cosmetics"
      empty="The catalog is empty."
      create={{ label: 'New cosmetic', form: (props) => <CosmeticForm {...props} /> }}
      keyOf={(c) => c.id}
      columns={(list) => [
        { label: 'Id', render: (c) => <code>{c.id}</code> },
        { label: 'Type', render: (c) => c.type },
        { label: 'Name', render: (c) => c.name },
        { label: 'Locked', render: (c) => (c.locked ? 'locked (granted only)' : 'free') },
        { label: 'Updated', render: (c) => <Time iso={c.updatedAt} /> },
        {
          label: 'Actions',
          render: (c) => (
            <RowActions
              name={c.id}
              onEdit={() => list.edit(c)}
              onDelete={() => list.act(deleteRow(`/cosmetics/${enc(c.id)}`))}
            />
          ),
        },
      ]}
    />
  )
}
