import { useState } from 'preact/hooks'
import { api, enc } from '../../../console/src/api'
import { ActionForm, deleteRow, ListPage, RowActions, type FormProps } from '../../../console/src/list'
import type { AdminConfig as Config } from '../../../console/src/types'
import { CheckField, TextArea, TextField, Time } from '../../../console/src/ui'

function isJson(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

/** Values are strings the game parses; in JSON mode the editor refuses to save text that is not JSON. */
function ConfigEditor({ item, done }: FormProps<Config>) {
  const [key, setKey] = useState(item?.configKey ?? '')
  const [value, setValue] = useState(item?.configValue ?? '')
  const [asJson, setAsJson] = useState(item ? isJson(item.configValue) : true)
  let problem = ''
  if (asJson) {
    try {
      JSON.parse(value)
    } catch (error) {
      problem = `Not valid JSON: ${(error as Error).message}`
    }
  }
  return (
    <ActionForm
      label={item ? `Edit ${item.configKey}` : 'New config value'}
      disabled={!!problem || !key.trim()}
      save={() => api('PUT', `/remote-config/${enc(key.trim())}`, { value })}
      onDone={done}
    >
      {item ? (
        <p>
          Key <code>{item.configKey}</code>
        </p>
      ) : (
        <TextField label="Key" value={key} onValue={setKey} required />
      )}
      <TextArea label="Value" value={value} onValue={setValue} rows={8} invalid={!!problem} />
      <CheckField label="Value is JSON (checked before saving)" checked={asJson} onValue={setAsJson} />
      {asJson && (
        <button type="button" disabled={!!problem} onClick={() => setValue(JSON.stringify(JSON.parse(value), null, 2))}>
          Format JSON
        </button>
      )}
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
    </ActionForm>
  )
}

export default function RemoteConfig() {
  return (
    <ListPage<Config>
      title="Remote config"
      path="/remote-config"
      empty="No config values yet."
      create={{ label: 'New config value', form: (props) => <ConfigEditor {...props} /> }}
      keyOf={(c) => c.configKey}
      columns={(list) => [
        { label: 'Key', render: (c) => <code>{c.configKey}</code> },
        { label: 'Value', render: (c) => <pre class="json">{c.configValue}</pre> },
        { label: 'Updated', render: (c) => <Time iso={c.updatedAt} /> },
        {
          label: 'Actions',
          render: (c) => (
            <RowActions
              name={c.configKey}
              onEdit={() => list.edit(c)}
              onDelete={() => list.act(deleteRow(`/remote-config/${enc(c.configKey)}`))}
            />
          ),
        },
      ]}
    />
  )
}
