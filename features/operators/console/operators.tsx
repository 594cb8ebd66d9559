import { useState } from 'preact/hooks'
import { ROLES } from '../../../platform/security/roles'
import { api, enc } from '../../../console/src/api'
import { ActionForm, ListPage, RowActions, type FormProps } from '../../../console/src/list'
import type { OperatorBody as OperatorRow, Role } from '../../../console/src/types'
import { ConfirmButton, SelectField, TextField, Time, useOperator } from '../../../console/src/ui'

/** The roles, least first: the order of the role picker. */
const PICKABLE = [...ROLES].reverse()

/** New: name, role and a first password. Editing changes the role only (a password is its owner's). */
function OperatorForm({ item, done }: FormProps<OperatorRow>) {
  const [username, setUsername] = useState('')
  const [password, setPassword] = useState('')
  const [role, setRole] = useState<Role>(item?.role ?? 'viewer')
  return (
    <ActionForm
      label={item ? `Role of ${item.username}` : 'New operator'}
      area="operators"
      onDone={done}
      save={() =>
        item
          ? api('PATCH', `/operators/${enc(item.username)}`, { role })
          : api('POST', '/operators', { username: username.trim(), password, role })
      }
    >
      {item ? (
        <p>
          Operator <strong>{item.username}</strong>
        </p>
      ) : (
        <>
          <TextField label="Username" value={username} onValue={setUsername} required autoComplete="off" />
          <TextField
            label="Password"
            type="password"
            value={password}
            onValue={setPassword}
            required
            minLength={12}
            autoComplete="new-password"
            hint="12 characters or more; they change it after signing in"
          />
        </>
      )}
      <SelectField label="Role" value={role} options={PICKABLE} onValue={setRole} />
    </ActionForm>
  )
}

export default function Operators() {
  const me = useOperator()
  return (
    <ListPage<OperatorRow>
      title="Operators"
      path="/operators"
      area="operators"
      empty="No operators: the admin key is the only way in."
      create={{ label: 'New operator', form: (props) => <OperatorForm {...props} /> }}
      keyOf={(o) => o.username}
      columns={(list) => [
        {
          label: 'Username',
          render: (o) => (o.username === me?.username ? <strong>{o.username} (you)</strong> : o.username),
        },
        { label: 'Role', render: (o) => <span class={`role role-${o.role}`}>{o.role}</span> },
        { label: 'Second factor', render: (o) => (o.totpEnabled ? 'TOTP' : <span class="muted">none</span>) },
        { label: 'Added', render: (o) => <Time iso={o.createdAt} /> },
        { label: 'Updated', render: (o) => <Time iso={o.updatedAt} /> },
        {
          label: 'Actions',
          render: (o) => (
            <RowActions
              name={o.username}
              area="operators"
              editLabel="Change role"
              deleteVerb="Remove"
              onEdit={() => list.edit(o)}
              onDelete={() => list.act(() => api('DELETE', `/operators/${enc(o.username)}`), `Removed ${o.username}`)}
            >
              <ConfirmRevoke username={o.username} act={list.act} />
            </RowActions>
          ),
        },
      ]}
    />
  )
}

function ConfirmRevoke({
  username,
  act,
}: {
  username: string
  act: (write: () => Promise<unknown>, success?: string) => void
}) {
  return (
    <ConfirmButton
      label={`Revoke sessions of ${username}`}
      confirmLabel="Confirm revoke"
      area="operators"
      onConfirm={() =>
        act(async () => {
          await api('POST', `/operators/${enc(username)}/revoke-sessions`)
        }, `Signed ${username} out everywhere`)
      }
    />
  )
}
