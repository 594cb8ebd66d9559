import { useState } from 'preact/hooks'
import { api, enc } from '../api'
import {
  CheckField,
  ConfirmButton,
  ErrorNote,
  Notice,
  PagedTable,
  SaveForm,
  TextArea,
  TextField,
  Time,
  Title,
  useAction,
  usePaged,
  WriteButton,
} from '../ui'

interface Config {
  configKey: string
  configValue: string | null
  updatedAt: string
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

/** Values are strings the game parses; in JSON mode the editor refuses to save text that is not JSON. */
function ConfigEditor({ initial, onSaved }: { initial?: Config; onSaved: () => void }) {
  const [key, setKey] = useState(initial?.configKey ?? '')
  const [value, setValue] = useState(initial?.configValue ?? '')
  const [asJson, setAsJson] = useState(initial ? isJson(initial.configValue ?? '') : true)
  const action = useAction()
  let problem = ''
  if (asJson) {
    try {
      JSON.parse(value)
    } catch (error) {
      problem = `Not valid JSON: ${(error as Error).message}`
    }
  }
  return (
    <>
      <SaveForm
        label={initial ? `Edit ${initial.configKey}` : 'New config value'}
        busy={action.busy}
        disabled={!!problem || !key.trim()}
        onSave={() =>
          action.run(async () => {
            await api('PUT', `/remote-config/${enc(key.trim())}`, { value })
            onSaved()
          }, 'Saved')
        }
      >
        {initial ? (
          <p>
            Key <code>{initial.configKey}</code>
          </p>
        ) : (
          <TextField label="Key" value={key} onValue={setKey} required />
        )}
        <TextArea label="Value" value={value} onValue={setValue} rows={8} invalid={!!problem} />
        <CheckField label="Value is JSON (checked before saving)" checked={asJson} onValue={setAsJson} />
        {asJson && (
          <button
            type="button"
            disabled={!!problem}
            onClick={() => setValue(JSON.stringify(JSON.parse(value), null, 2))}
          >
            Format JSON
          </button>
        )}
        {problem && (
          <p class="error" role="alert">
            {problem}
          </p>
        )}
      </SaveForm>
      <ErrorNote error={action.error} />
      <Notice text={action.notice} />
    </>
  )
}

export default function RemoteConfig() {
  const paged = usePaged<Config>('/remote-config', {})
  const [editing, setEditing] = useState<Config | 'new' | null>(null)
  const action = useAction()
  return (
    <>
      <Title
        actions={
          <WriteButton onClick={() => setEditing(editing === 'new' ? null : 'new')}>New config value</WriteButton>
        }
      >
        Remote config
      </Title>
      {editing && (
        <ConfigEditor
          key={editing === 'new' ? 'new' : editing.configKey}
          initial={editing === 'new' ? undefined : editing}
          onSaved={() => {
            setEditing(null)
            paged.reload()
          }}
        />
      )}
      <ErrorNote error={action.error} />
      <PagedTable
        paged={paged}
        caption="Remote config"
        empty="No config values yet."
        columns={[
          { label: 'Key', render: (c) => <code>{c.configKey}</code> },
          { label: 'Value', render: (c) => <pre class="json">{c.configValue}</pre> },
          { label: 'Updated', render: (c) => <Time iso={c.updatedAt} /> },
          {
            label: 'Actions',
            render: (c) => (
              <span class="actions">
                <WriteButton onClick={() => setEditing(c)} aria-label={`Edit ${c.configKey}`}>
                  Edit
                </WriteButton>
                <ConfirmButton
                  label={`Delete ${c.configKey}`}
                  confirmLabel="Confirm delete"
                  onConfirm={() =>
                    action.run(() => api('DELETE', `/remote-config/${enc(c.configKey)}`)).then(paged.reload)
                  }
                />
              </span>
            ),
          },
        ]}
      />
    </>
  )
}
