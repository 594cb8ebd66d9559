import { useState } from 'preact/hooks'
import { api, enc, get } from '../../../console/src/api'
import { ActionForm } from '../../../console/src/list'
import { Loading, num, Table, TextField, Time, Title, useGame, useLoad, WriteButton } from '../../../console/src/ui'
import { KeyOnce } from './key-once'
import { itemsOf, type CreatedGame, type GameStats } from './shapes'

/** The share of game sessions that did not crash, as a percentage; a dash before the first session. */
function rate(value: number | null) {
  if (value === null) return <span title="No game sessions yet">—</span>
  return `${(Math.floor(value * 1000) / 10).toFixed(1)}%`
}

function NewGame({ onCreated, onDone }: { onCreated: (game: CreatedGame) => void; onDone: () => void }) {
  const [id, setId] = useState('')
  const [name, setName] = useState('')
  return (
    <ActionForm
      label="New game"
      submit="Create game"
      area="operators"
      onDone={onDone}
      success="Game created"
      save={async () => onCreated(await api<CreatedGame>('POST', '/games', { id: id.trim(), name: name.trim() }))}
    >
      <TextField
        label="Id"
        value={id}
        onValue={setId}
        required
        autoComplete="off"
        hint="Lowercase letters, digits and dashes: it names the game in admin paths and cannot change"
      />
      <TextField label="Name" value={name} onValue={setName} required autoComplete="off" />
    </ActionForm>
  )
}

function Rename({ game, onDone }: { game: GameStats; onDone: () => void }) {
  const [name, setName] = useState(game.name)
  return (
    <ActionForm
      label={`Rename ${game.name}`}
      area="operators"
      onDone={onDone}
      success="Renamed"
      save={() => api('PATCH', `/games/${enc(game.id)}`, { name: name.trim() })}
    >
      <p>
        Game <code>{game.id}</code>
      </p>
      <TextField label="Name" value={name} onValue={setName} required autoComplete="off" />
    </ActionForm>
  )
}

/** Deleting erases a whole game: the operator types its id first. */
function Delete({ game, onDone }: { game: GameStats; onDone: () => void }) {
  const [typed, setTyped] = useState('')
  return (
    <ActionForm
      label={`Delete ${game.name}`}
      submit="Delete game"
      area="operators"
      disabled={typed.trim() !== game.id}
      onDone={onDone}
      success={`Deleted ${game.name}`}
      save={() => api('DELETE', `/games/${enc(game.id)}`, { confirm: game.id })}
    >
      <p>
        Deleting <strong>{game.name}</strong> erases its players, boards, saves, content, crashes, logs and keys, and
        its database: it cannot be undone. Type <code>{game.id}</code> to confirm.
      </p>
      <TextField label="Game id to confirm" value={typed} onValue={setTyped} autoComplete="off" required />
    </ActionForm>
  )
}

type Editing = { kind: 'new' } | { kind: 'rename' | 'delete'; game: GameStats }

export default function Games() {
  const choice = useGame()
  const loaded = useLoad(() => get<{ items: GameStats[] }>('/games', { stats: true }), [])
  const [editing, setEditing] = useState<Editing | null>(null)
  const [created, setCreated] = useState<CreatedGame | null>(null)
  const changed = () => {
    setEditing(null)
    loaded.reload()
    choice.reloadGames()
  }
  const open = (id: string) => {
    choice.choose(id)
    window.location.hash = '#/'
  }
  const items = loaded.data ? itemsOf(loaded.data) : []
  return (
    <>
      <Title
        actions={
          <WriteButton write="operators" onClick={() => setEditing(editing?.kind === 'new' ? null : { kind: 'new' })}>
            New game
          </WriteButton>
        }
      >
        Games
      </Title>
      <p class="muted">
        Each game keeps its own players, boards, content and app keys. The console shows the game chosen in the header:
        now <strong>{choice.name}</strong>.
      </p>
      {created && <KeyOnce secret={created.key.key} what={created.name} onClose={() => setCreated(null)} />}
      {editing?.kind === 'new' && <NewGame onCreated={setCreated} onDone={changed} />}
      {editing?.kind === 'rename' && <Rename key={editing.game.id} game={editing.game} onDone={changed} />}
      {editing?.kind === 'delete' && <Delete key={editing.game.id} game={editing.game} onDone={changed} />}
      <Loading loaded={loaded} />
      {loaded.data && (
        <Table
          items={items}
          caption="Games"
          empty="No games."
          columns={[
            {
              label: 'Game',
              render: (g) => (
                <>
                  <strong>{g.name}</strong> <code>{g.id}</code>
                  {g.id === choice.game && <span class="badge good">chosen</span>}
                </>
              ),
            },
            { label: 'Players', numeric: true, render: (g) => num(g.players) },
            { label: 'Active today', numeric: true, render: (g) => num(g.activeToday) },
            { label: 'Crash-free rate', numeric: true, render: (g) => rate(g.crashFreeRate) },
            { label: 'Created', render: (g) => <Time iso={g.createdAt} /> },
            {
              label: 'Actions',
              render: (g) => (
                <span class="actions">
                  <button type="button" aria-label={`Open ${g.name}`} onClick={() => open(g.id)}>
                    Open
                  </button>
                  <WriteButton
                    write="operators"
                    aria-label={`Rename ${g.name}`}
                    onClick={() => setEditing({ kind: 'rename', game: g })}
                  >
                    Rename
                  </WriteButton>
                  <WriteButton
                    write="operators"
                    danger
                    aria-label={`Delete ${g.name}`}
                    disabled={g.id === 'default'}
                    {...(g.id === 'default' && { title: 'The default game cannot be deleted' })}
                    onClick={() => setEditing({ kind: 'delete', game: g })}
                  >
                    Delete
                  </WriteButton>
                </span>
              ),
            },
          ]}
        />
      )}
    </>
  )
}
