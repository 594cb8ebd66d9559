import { useState } from 'preact/hooks'
import { get } from '../../../console/src/api'
import type { Setting } from '../../../console/src/types'
import { Loading, Table, TextField, Title, useLoad } from '../../../console/src/ui'

/** A secret's value never reaches the console: the server answers only whether one is set. */
function Value({ setting }: { setting: Setting }) {
  if (setting.secret && !setting.set) return <span class="badge">secret, not set</span>
  if (setting.secret && setting.value === '[set]') return <span class="badge good">secret, set</span>
  if (setting.value === null || setting.value === '') return <span class="muted">not set</span>
  return (
    <>
      <code>{String(setting.value)}</code> {setting.secret && <span class="badge">credentials hidden</span>}
    </>
  )
}

export default function Settings() {
  const loaded = useLoad(() => get<{ items: Setting[] }>('/settings'), [])
  const [filter, setFilter] = useState('')
  const needle = filter.trim().toLowerCase()
  const items = (loaded.data?.items ?? []).filter(
    (s) => !needle || s.name.toLowerCase().includes(needle) || (s.description ?? '').toLowerCase().includes(needle),
  )
  return (
    <>
      <Title>Settings</Title>
      <p class="muted">
        Read-only: settings come from the environment or <code>.env</code> and take effect on restart
        (docs/configuration.md). Secrets show only whether they are set.
      </p>
      <div class="filters">
        <TextField label="Filter" value={filter} onValue={setFilter} type="search" />
      </div>
      <Loading loaded={loaded} />
      {loaded.data && (
        <Table
          items={items}
          caption="Settings"
          columns={[
            { label: 'Name', render: (s) => <code>{s.name}</code> },
            { label: 'Value', render: (s) => <Value setting={s} /> },
            { label: 'Default', render: (s) => (s.isDefault ? 'default' : <strong>changed</strong>) },
            { label: 'Description', render: (s) => s.description ?? '' },
          ]}
        />
      )}
    </>
  )
}
