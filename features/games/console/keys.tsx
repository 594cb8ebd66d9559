import { useState } from 'preact/hooks'
import { api, enc, get } from '../../../console/src/api'
import { ActionForm } from '../../../console/src/list'
import {
  ConfirmButton,
  ErrorNote,
  Loading,
  Notice,
  Table,
  TextField,
  Time,
  Title,
  useAction,
  useGame,
  useLoad,
  WriteButton,
} from '../../../console/src/ui'
import { KeyOnce } from './key-once'
import { itemsOf, type GameKey } from './shapes'

function NewKey({ game, onCreated, onDone }: { game: string; onCreated: (key: GameKey) => void; onDone: () => void }) {
  const [label, setLabel] = useState('')
  return (
    <ActionForm
      label="New app key"
      submit="Create key"
      area="operators"
      onDone={onDone}
      success="Key created"
      save={async () => onCreated(await api<GameKey>('POST', `/games/${enc(game)}/keys`, { label: label.trim() }))}
    >
      <TextField
        label="Label"
        value={label}
        onValue={setLabel}
        required
        autoComplete="off"
        hint="Which build or environment uses it: “iOS production”, “staging”"
      />
    </ActionForm>
  )
}

export default function Keys() {
  const { game, name } = useGame()
  const path = `/games/${enc(game)}/keys`
  const loaded = useLoad(() => get<{ items: GameKey[] } | GameKey[]>(path), [path])
  const [creating, setCreating] = useState(false)
  const [created, setCreated] = useState<GameKey | null>(null)
  const action = useAction()
  const items = loaded.data ? itemsOf(loaded.data) : []
  const revoke = (key: GameKey) =>
    void action
      .run(() => api('POST', `${path}/${enc(key.id)}/revoke`), `Revoked ${key.label}`)
      .then(() => loaded.reload())
  return (
    <>
      <Title
        actions={
          <WriteButton write="operators" onClick={() => setCreating(!creating)}>
            New key
          </WriteButton>
        }
      >
        App keys
      </Title>
      <p class="muted">
        The keys of <strong>{name}</strong>: each build of the game sends one as <code>X-API-Key</code>, and the key
        decides the game. A game keeps one live key at least; a revoked key is refused by every instance within a
        second.
      </p>
      {created?.key && (
        <KeyOnce secret={created.key} what={`${name} (${created.label})`} onClose={() => setCreated(null)} />
      )}
      {creating && (
        <NewKey
          game={game}
          onCreated={setCreated}
          onDone={() => {
            setCreating(false)
            loaded.reload()
          }}
        />
      )}
      <ErrorNote error={action.error} />
      <Notice text={action.notice} />
      <Loading loaded={loaded} />
      {loaded.data && (
        <Table
          items={items}
          caption={`App keys of ${name}`}
          empty="No keys."
          columns={[
            { label: 'Label', render: (k) => k.label },
            { label: 'Key', render: (k) => <code>{k.prefix}…</code> },
            { label: 'Created', render: (k) => <Time iso={k.createdAt} /> },
            { label: 'Last used', render: (k) => <Time iso={k.lastUsedAt} /> },
            {
              label: 'Status',
              render: (k) =>
                k.revokedAt ? (
                  <>
                    <span class="badge bad">revoked</span> <Time iso={k.revokedAt} />
                  </>
                ) : (
                  <span class="badge good">live</span>
                ),
            },
            {
              label: 'Actions',
              render: (k) =>
                k.revokedAt ? null : (
                  <ConfirmButton
                    label={`Revoke ${k.label}`}
                    confirmLabel="Confirm revoke"
                    area="operators"
                    onConfirm={() => revoke(k)}
                  />
                ),
            },
          ]}
        />
      )}
    </>
  )
}
