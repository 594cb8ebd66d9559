import { useState } from 'preact/hooks'
import { api, enc } from '../../../console/src/api'
import { ActionForm } from '../../../console/src/list'
import type { AdminRun as Run, Rules, ValueDefinition } from '../../../console/src/types'
import { Json, num, PagedTable, SelectField, TextArea, TextField, Time, Title, usePaged } from '../../../console/src/ui'
import { EvidenceButton, ReviewButtons } from './review'

const OUTCOMES = ['', 'OPEN', 'EXPIRED', 'ACCEPTED', 'REJECTED'] as const

function ReviewQueue() {
  const [onlySus, setOnlySus] = useState<'true' | ''>('true')
  const [outcome, setOutcome] = useState<(typeof OUTCOMES)[number]>('')
  const [userId, setUserId] = useState('')
  const paged = usePaged<Run>('/validated-actions/runs', { sus: onlySus || undefined, outcome, userId: userId.trim() })
  return (
    <section aria-labelledby="queue-title">
      <h2 id="queue-title">Review queue</h2>
      <div class="filters">
        <SelectField
          label="Runs"
          value={onlySus}
          options={
            [
              ['true', 'suspicious only'],
              ['', 'all'],
            ] as const
          }
          onValue={setOnlySus}
        />
        <SelectField label="Outcome" value={outcome} options={OUTCOMES} onValue={setOutcome} />
        <TextField label="User id" value={userId} onValue={setUserId} />
      </div>
      <PagedTable
        paged={paged}
        caption="Review queue"
        empty="No runs to review."
        columns={[
          { label: 'Run', render: (r) => <a href={`#/runs/${r.runId}`}>{r.runId.slice(0, 8)}</a> },
          { label: 'Player', render: (r) => <a href={`#/players/${r.userId}`}>{r.userId.slice(0, 8)}</a> },
          { label: 'Board', render: (r) => r.leaderboardKey ?? '—' },
          { label: 'Outcome', render: (r) => `${r.outcome}${r.reason ? ` (${r.reason})` : ''}` },
          { label: 'Score', render: (r) => num(r.score), numeric: true },
          { label: 'Duration', render: (r) => (r.durationSeconds === null ? '—' : `${r.durationSeconds} s`) },
          { label: 'Why sus', render: (r) => r.susReasons.join(', ') },
          { label: 'Evidence', render: (r) => <EvidenceButton run={r} /> },
          { label: 'Submitted', render: (r) => <Time iso={r.submittedAt} /> },
          {
            label: 'Review',
            render: (r) => (r.sus && r.outcome === 'ACCEPTED' ? <ReviewButtons run={r} onDone={paged.reload} /> : ''),
          },
        ]}
      />
    </section>
  )
}

function RulesSection() {
  const paged = usePaged<Rules>('/validated-actions/rules', {})
  const [boardKey, setBoardKey] = useState('')
  const [text, setText] = useState('{\n  "minDurationSeconds": 10,\n  "susScore": null\n}')
  let parsed: unknown = null
  let invalid = ''
  try {
    parsed = JSON.parse(text)
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) invalid = 'The rules must be a JSON object'
  } catch (error) {
    invalid = `Not valid JSON: ${(error as Error).message}`
  }
  return (
    <section aria-labelledby="rules-title">
      <h2 id="rules-title">Rules</h2>
      <p class="muted small">
        One rule set per board (<code>_unbound</code> for runs without a board). Saving replaces the whole set: omitted
        fields take their defaults.
      </p>
      <PagedTable
        paged={paged}
        caption="Rules"
        empty="No rules yet: runs are checked with the defaults."
        columns={[
          { label: 'Board', render: (r) => r.boardKey },
          {
            label: 'Rules',
            render: (r) => {
              const { boardKey: _key, createdAt: _c, updatedAt: _u, ...rest } = r
              return <Json value={rest} />
            },
          },
          { label: 'Updated', render: (r) => <Time iso={r.updatedAt} /> },
          {
            label: 'Edit',
            render: (r) => {
              const { boardKey: key, createdAt: _c, updatedAt: _u, ...rest } = r
              return (
                <button
                  type="button"
                  onClick={() => {
                    setBoardKey(key)
                    setText(JSON.stringify(rest, null, 2))
                  }}
                >
                  Edit {key}
                </button>
              )
            },
          },
        ]}
      />
      <ActionForm
        label="Rule set"
        disabled={!!invalid || !boardKey.trim()}
        save={() => api('PUT', `/validated-actions/rules/${enc(boardKey.trim())}`, parsed)}
        success="Rules saved"
        onDone={paged.reload}
      >
        <TextField label="Board key" value={boardKey} onValue={setBoardKey} required />
        <TextArea label="Rules (JSON)" value={text} onValue={setText} rows={10} invalid={!!invalid} />
        {invalid && <p class="error">{invalid}</p>}
      </ActionForm>
    </section>
  )
}

function ValuesSection() {
  const paged = usePaged<ValueDefinition>('/validated-actions/values', {})
  const [key, setKey] = useState('')
  const [minPerRun, setMin] = useState('')
  const [maxPerRun, setMax] = useState('')
  const [dailyCap, setCap] = useState('')
  const num = (s: string) => (s.trim() === '' ? null : Number(s))
  return (
    <section aria-labelledby="values-title">
      <h2 id="values-title">Values</h2>
      <PagedTable
        paged={paged}
        caption="Values"
        empty="No values defined."
        columns={[
          { label: 'Key', render: (v) => v.key },
          { label: 'Min per run', render: (v) => v.minPerRun ?? '—' },
          { label: 'Max per run', render: (v) => v.maxPerRun ?? '—' },
          { label: 'Daily cap', render: (v) => v.dailyCap ?? '—' },
          { label: 'Updated', render: (v) => <Time iso={v.updatedAt} /> },
        ]}
      />
      <ActionForm
        label="Value"
        save={() =>
          api('PUT', `/validated-actions/values/${enc(key.trim())}`, {
            minPerRun: num(minPerRun),
            maxPerRun: num(maxPerRun),
            dailyCap: num(dailyCap),
          })
        }
        success="Value saved"
        onDone={paged.reload}
      >
        <TextField label="Key" value={key} onValue={setKey} required />
        <TextField label="Min per run" value={minPerRun} onValue={setMin} inputMode="numeric" />
        <TextField label="Max per run" value={maxPerRun} onValue={setMax} inputMode="numeric" />
        <TextField label="Daily cap" value={dailyCap} onValue={setCap} inputMode="numeric" />
      </ActionForm>
    </section>
  )
}

export default function Runs() {
  return (
    <>
      <Title>Validated runs</Title>
      <ReviewQueue />
      <RulesSection />
      <ValuesSection />
    </>
  )
}
