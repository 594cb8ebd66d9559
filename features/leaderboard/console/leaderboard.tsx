import { useState } from 'preact/hooks'
import { api, enc, get } from '../../../console/src/api'
import type { PageProps } from '../../../console/src/page'
import type { AdminBoard as Board, AdminEntry, Page } from '../../../console/src/types'
import {
  ConfirmButton,
  ErrorNote,
  Loading,
  Notice,
  num,
  PagedTable,
  RowMenu,
  SaveForm,
  SelectField,
  TextField,
  Time,
  Title,
  useAction,
  useLoad,
  usePaged,
  UserPicker,
  WriteButton,
} from '../../../console/src/ui'
import { BoardCharts } from './board-charts'
import { BoardForm } from './leaderboards'

async function findBoard(key: string): Promise<Board> {
  // The admin API lists boards (no single-board read): walk the pages until the key shows up.
  let cursor: string | undefined
  for (let page = 0; page < 50; page++) {
    const list = await get<Page<Board>>('/leaderboards', { limit: 100, cursor })
    const found = list.items.find((b) => b.key === key)
    if (found) return found
    if (!list.nextCursor) break
    cursor = list.nextCursor
  }
  throw new Error(`No leaderboard with the key “${key}”`)
}

function Bans({ boardKey, onChange }: { boardKey: string; onChange: () => void }) {
  const [userId, setUserId] = useState('')
  const [reason, setReason] = useState('')
  const action = useAction()
  const path = (id: string) => `/leaderboards/${enc(boardKey)}/bans/${enc(id.trim())}`
  return (
    <section aria-labelledby="bans-title">
      <h2 id="bans-title">Board bans</h2>
      <p class="muted small">
        A player banned from this board has the entry hidden and is refused with PLAYER_BANNED when submitting.
      </p>
      <SaveForm
        label="Ban a player from this board"
        submit="Ban"
        busy={action.busy}
        disabled={!userId}
        onSave={() =>
          action
            .run(
              () => api('PUT', path(userId), reason.trim() ? { reason: reason.trim() } : {}),
              'Banned from the board',
            )
            .then(onChange)
        }
      >
        <UserPicker value={userId} onValue={setUserId} />
        <TextField label="Reason" value={reason} onValue={setReason} />
      </SaveForm>
      <WriteButton
        disabled={!userId.trim() || action.busy}
        onClick={() => action.run(() => api('DELETE', path(userId)), 'Board ban lifted').then(onChange)}
      >
        Lift board ban
      </WriteButton>
      <ErrorNote error={action.error} />
      <Notice text={action.notice} />
    </section>
  )
}

export default function Leaderboard({ params }: PageProps) {
  const key = params.boardKey
  const board = useLoad(() => findBoard(key), [key])
  const [period, setPeriod] = useState<'current' | 'previous'>('current')
  const entries = usePaged<AdminEntry>(`/leaderboards/${enc(key)}/entries`, { period })
  const [editing, setEditing] = useState(false)
  const action = useAction()
  const refresh = () => {
    board.reload()
    entries.reload()
  }
  return (
    <>
      <Title
        actions={
          <>
            <WriteButton onClick={() => setEditing(!editing)}>Edit</WriteButton>
            <ConfirmButton
              label="Reset board"
              onConfirm={() =>
                action.run(() => api('POST', `/leaderboards/${enc(key)}/reset`), 'Board reset').then(refresh)
              }
            />
            <ConfirmButton
              label="Delete board"
              disabled={key === 'default'}
              onConfirm={() =>
                action.run(async () => {
                  await api('DELETE', `/leaderboards/${enc(key)}`)
                  window.location.hash = '#/leaderboards'
                })
              }
            />
          </>
        }
      >
        {board.data?.name ?? key}
      </Title>
      <p>
        <a href="#/leaderboards">← Leaderboards</a> · key <code>{key}</code>
      </p>
      <ErrorNote error={action.error} />
      <Notice text={action.notice} />
      <Loading loaded={board} />
      {board.data && editing && (
        <BoardForm
          board={board.data}
          onSaved={() => {
            setEditing(false)
            board.reload()
          }}
        />
      )}
      {board.data && (
        <p class="muted">
          {board.data.sortOrder === 'desc' ? 'Highest first' : 'Lowest first'} · {board.data.updateStrategy} · resets{' '}
          {board.data.resetSchedule} · {num(board.data.scoreCount)} scores · updated <Time iso={board.data.updatedAt} />
        </p>
      )}
      <BoardCharts boardKey={key} />
      <h2>Entries</h2>
      <div class="filters">
        <SelectField label="Period" value={period} options={['current', 'previous'] as const} onValue={setPeriod} />
      </div>
      <PagedTable
        paged={entries}
        caption="Entries"
        empty="No scores on this board."
        columns={[
          { label: 'Position', render: (e) => num(e.position), numeric: true },
          {
            label: 'Player',
            render: (e) => <a href={`#/players/${e.userId}`}>{e.username}</a>,
          },
          { label: 'Score', render: (e) => num(e.score), numeric: true },
          { label: 'Hidden', render: (e) => (e.hidden ? <span class="badge bad">banned</span> : '') },
          { label: 'Updated', render: (e) => <Time iso={e.updatedAt} /> },
          {
            label: 'Actions',
            render: (e) => (
              <RowMenu
                name={e.username}
                items={[
                  {
                    label: 'Open player',
                    write: false,
                    onSelect: () => (window.location.hash = `#/players/${e.userId}`),
                  },
                  {
                    label: 'Remove entry',
                    danger: true,
                    confirmLabel: 'Confirm remove',
                    onSelect: () =>
                      action
                        .run(() => api('DELETE', `/leaderboards/${enc(key)}/entries/${e.userId}`), 'Entry removed')
                        .then(refresh),
                  },
                ]}
              />
            ),
          },
        ]}
      />
      <Bans boardKey={key} onChange={entries.reload} />
    </>
  )
}
