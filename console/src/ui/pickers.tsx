// Pickers for what an operator would otherwise paste or type by heart: a player (searched by name,
// e-mail or id through GET /users) and cosmetics (from the catalog, GET /cosmetics).
import { useEffect, useMemo, useState } from 'preact/hooks'
import { get } from '../api'
import type { AdminCosmetic, AdminUser, Page } from '../types'
import { Combobox, type Option } from './combobox'
import { ErrorNote, useLoad } from './load'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const SEARCH_DELAY_MS = 200

/** Picks one player; a pasted user id is taken as it is. `onValue` gets the id, or '' while none. */
export function UserPicker({
  label = 'Player',
  value,
  onValue,
  disabled,
}: {
  label?: string
  value: string
  onValue: (userId: string) => void
  disabled?: boolean
}) {
  const [text, setText] = useState('')
  const [found, setFound] = useState<AdminUser[]>([])
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const [picked, setPicked] = useState<AdminUser | null>(null)
  useEffect(() => {
    if (!value) setPicked(null)
  }, [value])
  useEffect(() => {
    const query = text.trim()
    if (!query || picked?.username === query) return
    let live = true
    setBusy(true)
    const timer = setTimeout(() => {
      get<Page<AdminUser>>('/users', { query, limit: 8 }).then(
        (page) => live && (setFound(page.items), setError(null), setBusy(false)),
        (caught) => live && (setError(caught), setBusy(false)),
      )
    }, SEARCH_DELAY_MS)
    return () => {
      live = false
      clearTimeout(timer)
    }
  }, [text])
  const options: Option[] = found.map((u) => ({
    value: u.userId,
    label: u.username,
    detail: `${u.email ?? (u.isAnonymous ? 'anonymous' : 'account')} · ${u.userId.slice(0, 8)}`,
  }))
  return (
    <>
      <Combobox
        label={label}
        text={text}
        disabled={disabled}
        busy={busy}
        empty="No player matches"
        options={options}
        hint={picked ? `Picked: ${picked.username} (${picked.userId})` : 'Type a name, an e-mail or paste an id'}
        onText={(next) => {
          setText(next)
          const id = next.trim()
          setPicked(null)
          onValue(UUID.test(id) ? id : '')
        }}
        onPick={(option) => {
          const user = found.find((u) => u.userId === option.value) ?? null
          setPicked(user)
          setText(option.label)
          onValue(option.value)
        }}
      />
      <ErrorNote error={error} />
    </>
  )
}

const CATALOG_PAGES = 10

async function catalog(): Promise<AdminCosmetic[]> {
  const items: AdminCosmetic[] = []
  let cursor: string | undefined
  for (let page = 0; page < CATALOG_PAGES; page++) {
    const list = await get<Page<AdminCosmetic>>('/cosmetics', { limit: 100, cursor })
    items.push(...list.items)
    if (!list.nextCursor) break
    cursor = list.nextCursor
  }
  return items
}

/** Picks cosmetics from the catalog, by id or name; the picked ones show as removable chips. */
export function CosmeticPicker({
  value,
  onValue,
  owned = [],
}: {
  value: string[]
  onValue: (ids: string[]) => void
  /** Already unlocked: left out of the options. */
  owned?: string[]
}) {
  const loaded = useLoad(catalog, [])
  const [text, setText] = useState('')
  const options = useMemo(() => {
    const query = text.trim().toLowerCase()
    return (loaded.data ?? [])
      .filter((c) => !value.includes(c.id) && !owned.includes(c.id))
      .filter((c) => c.id.toLowerCase().includes(query) || c.name.toLowerCase().includes(query))
      .slice(0, 12)
      .map((c) => ({ value: c.id, label: c.id, detail: `${c.name} · ${c.type}${c.locked ? ' · locked' : ''}` }))
  }, [loaded.data, text, value, owned])
  return (
    <div class="picker">
      <Combobox
        label="Cosmetic"
        text={text}
        onText={setText}
        options={options}
        busy={loaded.loading}
        empty={loaded.data?.length === 0 ? 'The catalog is empty' : 'No cosmetic matches'}
        hint="Type part of an id or a name, then pick"
        onPick={(option) => {
          onValue([...value, option.value])
          setText('')
        }}
      />
      <ErrorNote error={loaded.error} />
      {value.length > 0 && (
        <ul class="chips" aria-label="Cosmetics to grant">
          {value.map((id) => (
            <li key={id}>
              <code>{id}</code>{' '}
              <button
                type="button"
                class="small"
                aria-label={`Leave out ${id}`}
                onClick={() => onValue(value.filter((v) => v !== id))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
