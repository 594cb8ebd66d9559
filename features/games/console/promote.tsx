import { useState } from 'preact/hooks'
import { api, enc } from '../../../console/src/api'
import {
  CheckField,
  ConfirmButton,
  ErrorNote,
  Notice,
  SaveForm,
  SelectField,
  Table,
  Title,
  useAction,
  useGame,
} from '../../../console/src/ui'
import { COPY_PART_LABELS, type CopyPart, type CopyResult, type PartDiff } from './shapes'

const PARTS = Object.keys(COPY_PART_LABELS) as CopyPart[]

/** One line of a part's difference: the target's value before and after the promotion. */
interface Change {
  change: 'added' | 'changed' | 'removed'
  key: string
  before?: unknown
  after?: unknown
}

const changesOf = (diff: PartDiff): Change[] => [
  ...diff.added.map(({ key, value }): Change => ({ change: 'added', key, after: value })),
  ...diff.changed.map(({ key, from, to }): Change => ({ change: 'changed', key, before: from, after: to })),
  ...diff.removed.map(({ key, value }): Change => ({ change: 'removed', key, before: value })),
]

/** Whether applying removes what the source lacks: a board is kept (deleting it would delete its scores). */
const removes = (part: CopyPart) => part !== 'leaderboards'

/** How many lines of a part's difference applying would write. */
const writesOf = (part: CopyPart, diff: PartDiff) =>
  diff.added.length + diff.changed.length + (removes(part) ? diff.removed.length : 0)

/** A value on one line: text as it is, anything else as JSON, cut at 160 characters; none is a dash. */
function preview(value: unknown): string {
  if (value === undefined) return '—'
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  return text.length > 160 ? `${text.slice(0, 159)}…` : text
}

/** What a line's badge says. */
const changeText = (part: CopyPart, change: Change['change']) =>
  change === 'removed' && !removes(part) ? 'not in source: kept' : change

function PartChanges({ part, diff }: { part: CopyPart; diff: PartDiff }) {
  const label = COPY_PART_LABELS[part]
  const lines = diff.added.length + diff.changed.length + diff.removed.length
  const removed = `${diff.removed.length} ${removes(part) ? 'removed' : 'not in source (kept)'}`
  return (
    <section class="panel" aria-label={label} data-part={part}>
      <h2>{label}</h2>
      <p class="muted">
        {lines === 0
          ? 'The same in both games.'
          : `${diff.added.length} added, ${diff.changed.length} changed, ${removed}`}
      </p>
      {lines > 0 && (
        <Table
          items={changesOf(diff)}
          caption={`${label}: the difference`}
          columns={[
            {
              label: 'Change',
              render: (c) => (
                <span class={c.change === 'removed' && removes(part) ? 'badge bad' : 'badge'}>
                  {changeText(part, c.change)}
                </span>
              ),
            },
            { label: 'Key', render: (c) => <code class="diff-key">{c.key}</code> },
            { label: 'Before', render: (c) => <span class="diff-value">{preview(c.before)}</span> },
            { label: 'After', render: (c) => <span class="diff-value">{preview(c.after)}</span> },
          ]}
        />
      )}
    </section>
  )
}

/**
 * Promotion (contract §14): the chosen game is the target; its parts are made equal to another game's.
 * The difference is always shown first (a dry run); applying it is one more, confirmed, step, and a
 * change of source or parts asks for the difference again.
 */
export default function Promote() {
  const { game, name, games } = useGame()
  const others = (games ?? []).filter((g) => g.id !== game)
  const [picked, setPicked] = useState('')
  const source = others.some((g) => g.id === picked) ? picked : (others[0]?.id ?? '')
  const sourceName = others.find((g) => g.id === source)?.name ?? source
  const [parts, setParts] = useState<CopyPart[]>(PARTS)
  const [shown, setShown] = useState<{ asked: string; result: CopyResult } | null>(null)
  const action = useAction()
  // The difference shown belongs to one question: another target, source or parts hides it.
  const asked = JSON.stringify([game, source, parts])
  const result = shown?.asked === asked ? shown.result : null
  const total = result
    ? PARTS.reduce((sum, part) => sum + (result.parts[part] ? writesOf(part, result.parts[part]) : 0), 0)
    : 0
  const copy = async (dryRun: boolean) => {
    const body = { source, parts, dryRun }
    setShown({ asked, result: await api<CopyResult>('POST', `/games/${enc(game)}/copy-from`, body) })
  }
  const toggle = (part: CopyPart, on: boolean) => setParts(PARTS.filter((p) => (p === part ? on : parts.includes(p))))
  return (
    <>
      <Title>Promote</Title>
      <p class="muted">
        Makes parts of <strong>{name}</strong> equal to another game's, as when a staging game's content goes to
        production. Players' data (accounts, scores, saves) is never copied. The difference is shown first; applying it
        writes every part in one transaction and is recorded in the audit log.
      </p>
      {games === undefined ? (
        <p class="muted">Loading the games…</p>
      ) : others.length === 0 ? (
        <p>No other game to promote from: create one on the Games page.</p>
      ) : (
        <SaveForm
          label="Promotion"
          submit="Show difference"
          area="operators"
          busy={action.busy}
          disabled={parts.length === 0}
          onSave={() => void action.run(() => copy(true))}
        >
          <SelectField
            label={`Copy to ${name} from`}
            value={source}
            options={others.map((g) => [g.id, g.name] as const)}
            onValue={setPicked}
          />
          <fieldset class="field wide">
            <legend>Parts</legend>
            {PARTS.map((part) => (
              <CheckField
                key={part}
                label={COPY_PART_LABELS[part]}
                checked={parts.includes(part)}
                onValue={(on) => toggle(part, on)}
              />
            ))}
          </fieldset>
        </SaveForm>
      )}
      <ErrorNote error={action.error} />
      <Notice text={action.notice} />
      {result && (
        <section aria-label={result.dryRun ? 'The difference' : 'Applied'}>
          <h2>{result.dryRun ? `What applying would change in ${name}` : `Applied to ${name} from ${sourceName}`}</h2>
          {result.dryRun &&
            (total === 0 ? (
              <p>
                Nothing to apply: {name} already has these parts as they are in {sourceName}.
              </p>
            ) : (
              <div class="actions">
                <ConfirmButton
                  label={`Apply ${total} change${total === 1 ? '' : 's'} to ${name}`}
                  confirmLabel={`Confirm: overwrite ${name} from ${sourceName}`}
                  area="operators"
                  disabled={action.busy}
                  onConfirm={() => void action.run(() => copy(false), `Promoted ${sourceName} to ${name}`)}
                />
              </div>
            ))}
          {PARTS.filter((part) => result.parts[part]).map((part) => (
            <PartChanges key={part} part={part} diff={result.parts[part]!} />
          ))}
        </section>
      )}
    </>
  )
}
