import { useState } from 'preact/hooks'
import { api, enc } from '../../../console/src/api'
import { ActionForm, ListPage } from '../../../console/src/list'
import type { AdminBoard as Board } from '../../../console/src/types'
import { CheckField, intOrNull, num, SelectField, TextField, Time } from '../../../console/src/ui'

const SORT_ORDERS = ['desc', 'asc'] as const
const STRATEGIES = ['best', 'latest', 'increment'] as const
const SCHEDULES = ['none', 'daily', 'weekly', 'monthly'] as const

/** The board form: "Key" only when creating (a board's key is its address and never changes). */
export function BoardForm({ board, onSaved }: { board?: Board; onSaved: (board: Board) => void }) {
  const [key, setKey] = useState(board?.key ?? '')
  const [name, setName] = useState(board?.name ?? '')
  const [sortOrder, setSortOrder] = useState<Board['sortOrder']>(board?.sortOrder ?? 'desc')
  const [updateStrategy, setUpdateStrategy] = useState<Board['updateStrategy']>(board?.updateStrategy ?? 'best')
  const [resetSchedule, setResetSchedule] = useState<Board['resetSchedule']>(board?.resetSchedule ?? 'none')
  const [minScore, setMinScore] = useState(board ? String(board.minScore) : '')
  const [maxScore, setMaxScore] = useState(board ? String(board.maxScore) : '')
  const [validatedOnly, setValidatedOnly] = useState(board?.validatedOnly ?? false)
  const [isActive, setIsActive] = useState(board?.isActive ?? true)
  const save = async () => {
    const saved = await api<Board>('PUT', `/leaderboards/${enc(key.trim())}`, {
      name,
      sortOrder,
      updateStrategy,
      resetSchedule,
      // The bounds are integers or absent (an empty field keeps the server's default).
      minScore: intOrNull(minScore) ?? undefined,
      maxScore: intOrNull(maxScore) ?? undefined,
      validatedOnly,
      isActive,
    })
    onSaved(saved)
  }
  return (
    <ActionForm label={board ? `Edit ${board.key}` : 'New leaderboard'} save={save}>
      {!board && <TextField label="Key" value={key} onValue={setKey} required maxLength={64} />}
      <TextField label="Name" value={name} onValue={setName} required />
      <SelectField label="Sort order" value={sortOrder} options={SORT_ORDERS} onValue={setSortOrder} />
      <SelectField label="Update strategy" value={updateStrategy} options={STRATEGIES} onValue={setUpdateStrategy} />
      <SelectField label="Reset schedule" value={resetSchedule} options={SCHEDULES} onValue={setResetSchedule} />
      <TextField label="Min score" value={minScore} onValue={setMinScore} inputMode="numeric" />
      <TextField label="Max score" value={maxScore} onValue={setMaxScore} inputMode="numeric" />
      <CheckField label="Validated only" checked={validatedOnly} onValue={setValidatedOnly} />
      <CheckField label="Active" checked={isActive} onValue={setIsActive} />
    </ActionForm>
  )
}

export default function Leaderboards() {
  return (
    <ListPage<Board>
      title="Leaderboards"
      path="/leaderboards"
      create={{
        label: 'New leaderboard',
        form: () => <BoardForm onSaved={(board) => (window.location.hash = `#/leaderboards/${enc(board.key)}`)} />,
      }}
      columns={() => [
        { label: 'Key', render: (b) => <a href={`#/leaderboards/${enc(b.key)}`}>{b.key}</a> },
        { label: 'Name', render: (b) => b.name },
        { label: 'Sort', render: (b) => b.sortOrder },
        { label: 'Strategy', render: (b) => b.updateStrategy },
        { label: 'Reset', render: (b) => b.resetSchedule },
        { label: 'Scores', render: (b) => num(b.scoreCount), numeric: true },
        {
          label: 'State',
          render: (b) => `${b.isActive ? 'active' : 'inactive'}${b.validatedOnly ? ', validated only' : ''}`,
        },
        { label: 'Updated', render: (b) => <Time iso={b.updatedAt} /> },
      ]}
    />
  )
}
