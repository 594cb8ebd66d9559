import { useState } from 'preact/hooks'
import { api, enc, saveBlob } from '../../../console/src/api'
import type { AdminGiftCode, GeneratedGiftCodes } from '../../../console/src/types'
import {
  CosmeticPicker,
  ErrorNote,
  Notice,
  num,
  PagedTable,
  SaveForm,
  TextField,
  Time,
  Title,
  useAction,
  usePaged,
  WriteButton,
} from '../../../console/src/ui'

const isoOrUndefined = (text: string) => (text.trim() ? new Date(text.trim()).toISOString() : undefined)

/** One field set for both forms: what a code gives and when it works. */
function useGiftFields() {
  const [giftData, setGiftData] = useState('')
  const [grants, setGrants] = useState<string[]>([])
  const [maxRedemptions, setMax] = useState('1')
  const [startsAt, setStarts] = useState('')
  const [expiresAt, setExpires] = useState('')
  const body = () => ({
    giftData,
    ...(grants.length > 0 && { grants }),
    maxRedemptions: Number(maxRedemptions),
    ...(startsAt.trim() && { startsAt: isoOrUndefined(startsAt) }),
    ...(expiresAt.trim() && { expiresAt: isoOrUndefined(expiresAt) }),
  })
  const fields = (
    <>
      <TextField label="Gift data" value={giftData} onValue={setGiftData} required hint="What the game receives" />
      <CosmeticPicker value={grants} onValue={setGrants} />
      <TextField label="Max redemptions" value={maxRedemptions} onValue={setMax} inputMode="numeric" />
      <TextField label="Starts at" value={startsAt} onValue={setStarts} placeholder="2026-12-01T00:00:00Z" />
      <TextField label="Expires at" value={expiresAt} onValue={setExpires} placeholder="2026-12-31T23:59:59Z" />
    </>
  )
  return { body, fields }
}

function csv(codes: string[]): string {
  return `code\r\n${codes.map((c) => (/[",\r\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join('\r\n')}\r\n`
}

function CreateForm({ onDone }: { onDone: () => void }) {
  const [code, setCode] = useState('')
  const gift = useGiftFields()
  const action = useAction()
  return (
    <>
      <SaveForm
        label="New gift code"
        busy={action.busy}
        onSave={() =>
          action
            .run(async () => {
              const created = await api<AdminGiftCode>('POST', '/gift-codes', {
                ...(code.trim() && { code: code.trim() }),
                ...gift.body(),
              })
              action.setError(null)
              setCode(created.code)
            }, 'Created')
            .then(onDone)
        }
      >
        <TextField label="Code" value={code} onValue={setCode} hint="Leave empty to generate one" />
        {gift.fields}
      </SaveForm>
      <ErrorNote error={action.error} />
      <Notice text={action.notice && `${action.notice}: ${code}`} />
    </>
  )
}

function GenerateForm({ onDone }: { onDone: () => void }) {
  const [count, setCount] = useState('100')
  const [prefix, setPrefix] = useState('')
  const [codes, setCodes] = useState<string[]>([])
  const gift = useGiftFields()
  const action = useAction()
  return (
    <>
      <SaveForm
        label="Generate a batch"
        submit="Generate"
        busy={action.busy}
        onSave={() =>
          action
            .run(async () => {
              const batch = await api<GeneratedGiftCodes>('POST', '/gift-codes/generate', {
                count: Number(count),
                ...(prefix.trim() && { prefix: prefix.trim() }),
                ...gift.body(),
              })
              setCodes(batch.codes)
            }, 'Generated')
            .then(onDone)
        }
      >
        <TextField label="Count" value={count} onValue={setCount} inputMode="numeric" />
        <TextField label="Prefix" value={prefix} onValue={setPrefix} />
        {gift.fields}
      </SaveForm>
      <ErrorNote error={action.error} />
      {codes.length > 0 && (
        <p role="status">
          {codes.length} codes generated.{' '}
          <button
            type="button"
            onClick={() => saveBlob(new Blob([csv(codes)], { type: 'text/csv' }), `gift-codes-${Date.now()}.csv`)}
          >
            Download CSV
          </button>
        </p>
      )}
    </>
  )
}

export default function GiftCodes() {
  const [prefixFilter, setPrefixFilter] = useState('')
  const paged = usePaged<AdminGiftCode>('/gift-codes', { prefix: prefixFilter.trim() })
  const [mode, setMode] = useState<'create' | 'generate' | null>(null)
  return (
    <>
      <Title
        actions={
          <>
            <WriteButton onClick={() => setMode(mode === 'create' ? null : 'create')}>New gift code</WriteButton>
            <WriteButton onClick={() => setMode(mode === 'generate' ? null : 'generate')}>Generate batch</WriteButton>
          </>
        }
      >
        Gift codes
      </Title>
      {mode === 'create' && <CreateForm onDone={paged.reload} />}
      {mode === 'generate' && <GenerateForm onDone={paged.reload} />}
      <div class="filters">
        <TextField label="Prefix filter" value={prefixFilter} onValue={setPrefixFilter} type="search" />
      </div>
      <PagedTable
        paged={paged}
        caption="Gift codes"
        empty="No gift codes yet."
        columns={[
          { label: 'Code', render: (g) => <a href={`#/gift-codes/${enc(g.code)}`}>{g.code}</a> },
          { label: 'Status', render: (g) => g.status },
          { label: 'Redeemed', render: (g) => `${num(g.redemptionCount)} / ${num(g.maxRedemptions)}`, numeric: true },
          { label: 'Gift data', render: (g) => g.giftData },
          { label: 'Grants', render: (g) => g.grants.join(', ') },
          { label: 'Expires', render: (g) => <Time iso={g.expiresAt} /> },
          { label: 'Created', render: (g) => <Time iso={g.createdAt} /> },
        ]}
      />
    </>
  )
}
