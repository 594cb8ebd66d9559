import { useEffect, useRef, useState } from 'preact/hooks'
import { api, enc } from '../../../console/src/api'
import { ActionForm } from '../../../console/src/list'
import type { TranslationGrid } from '../../../console/src/types'
import {
  ConfirmButton,
  ErrorNote,
  Loading,
  Pager,
  TextArea,
  TextField,
  Title,
  useAction,
  useCanWrite,
  usePaged,
  WriteButton,
} from '../../../console/src/ui'

type Row = TranslationGrid['items'][number]

/** One cell being edited: its key and language. */
interface Cell {
  key: string
  lang: string
}

function CellEditor({ cell, value, done }: { cell: Cell; value: string | undefined; done: (saved: boolean) => void }) {
  const [text, setText] = useState(value ?? '')
  const action = useAction()
  const path = `/localization/${enc(cell.lang)}/${enc(cell.key)}`
  const panel = useRef<HTMLDivElement>(null)
  // The editor opens above the grid: take the keyboard there, and let Escape put the cell back.
  useEffect(() => panel.current?.querySelector('textarea')?.focus(), [])
  return (
    <div
      class="panel"
      role="group"
      aria-label={`${cell.key} in ${cell.lang}`}
      ref={panel}
      onKeyDown={(e) => e.key === 'Escape' && done(false)}
    >
      <ActionForm
        label={`Edit ${cell.key} in ${cell.lang}`}
        save={() => api('PUT', path, { value: text })}
        onDone={() => done(true)}
      >
        <p>
          <code>{cell.key}</code> in <strong>{cell.lang}</strong>
        </p>
        <TextArea label="Value" value={text} onValue={setText} rows={3} />
      </ActionForm>
      <div class="actions">
        <button type="button" onClick={() => done(false)}>
          Cancel
        </button>
        {value !== undefined && (
          <ConfirmButton
            label={`Delete ${cell.key} in ${cell.lang}`}
            confirmLabel="Confirm delete"
            onConfirm={() => action.run(() => api('DELETE', path)).then((ok) => ok && done(true))}
          />
        )}
      </div>
      <ErrorNote error={action.error} />
    </div>
  )
}

/** A value for a new key, a new language, or both: the grid has a row and a column once a value exists. */
function NewTranslation({ done }: { done: () => void }) {
  const [lang, setLang] = useState('')
  const [key, setKey] = useState('')
  const [value, setValue] = useState('')
  return (
    <ActionForm
      label="New translation"
      save={() => api('PUT', `/localization/${enc(lang.trim())}/${enc(key.trim())}`, { value })}
      onDone={done}
    >
      <TextField label="Lang" value={lang} onValue={setLang} required hint="BCP 47: en, de, pt-BR" />
      <TextField label="Key" value={key} onValue={setKey} required />
      <TextArea label="Value" value={value} onValue={setValue} rows={2} />
    </ActionForm>
  )
}

export default function Localization() {
  const [query, setQuery] = useState('')
  const paged = usePaged<Row>('/localization', { query: query.trim() }, 50)
  const [editing, setEditing] = useState<Cell | null>(null)
  const [creating, setCreating] = useState(false)
  const [extra, setExtra] = useState<string[]>([])
  const [newLang, setNewLang] = useState('')
  const action = useAction()
  const allowed = useCanWrite()
  const grid = paged.data as TranslationGrid | undefined
  const languages = [...new Set([...(grid?.languages ?? []), ...extra])]
  const rows = grid?.items ?? []
  const closeAndReload = () => {
    setEditing(null)
    setCreating(false)
    paged.reload()
  }
  // Back to the cell that was edited once the editor closes, so the keyboard carries on from there (the
  // reload after a save keeps the cell's element: rows and cells are keyed by key and language).
  const lastCell = useRef<Cell | null>(null)
  useEffect(() => {
    if (editing) {
      lastCell.current = editing
    } else if (lastCell.current) {
      const { key, lang } = lastCell.current
      lastCell.current = null
      document.querySelector<HTMLElement>(`[data-cell="${CSS.escape(`${lang}|${key}`)}"]`)?.focus()
    }
  }, [editing])
  return (
    <>
      <Title actions={<WriteButton onClick={() => setCreating(!creating)}>New translation</WriteButton>}>
        Localization
      </Title>
      {creating && <NewTranslation done={closeAndReload} />}
      <div class="filters">
        <TextField label="Key filter" value={query} onValue={setQuery} type="search" hint="Keys containing this text" />
        <form
          class="inline"
          aria-label="Add a language column"
          onSubmit={(e) => {
            e.preventDefault()
            if (newLang.trim()) setExtra([...extra, newLang.trim()])
            setNewLang('')
          }}
        >
          <TextField
            label="Language"
            value={newLang}
            onValue={setNewLang}
            hint="A column to fill in; saved with its first value"
          />
          <button type="submit" disabled={!allowed}>
            Add language
          </button>
        </form>
      </div>
      {editing && (
        <CellEditor
          key={`${editing.lang}|${editing.key}`}
          cell={editing}
          value={rows.find((r) => r.key === editing.key)?.values[editing.lang]}
          done={(saved) => (saved ? closeAndReload() : setEditing(null))}
        />
      )}
      <ErrorNote error={action.error} />
      <section class="list">
        <Loading loaded={paged} />
        {grid && rows.length === 0 && paged.page === 1 ? (
          <p class="muted">{query ? `No key contains “${query}”.` : 'No translations yet.'}</p>
        ) : (
          <div class="table-wrap">
            <table class="grid">
              <caption class="sr-only">Translations: keys by languages</caption>
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  {languages.map((lang) => (
                    <th scope="col" key={lang}>
                      {lang}{' '}
                      {grid?.languages.includes(lang) && (
                        <ConfirmButton
                          label={`Delete language ${lang}`}
                          confirmLabel={`Confirm delete ${lang}`}
                          onConfirm={() =>
                            action.run(() => api('DELETE', `/localization/${enc(lang)}`)).then(paged.reload)
                          }
                        />
                      )}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr key={row.key}>
                    <th scope="row">
                      <code>{row.key}</code>
                    </th>
                    {languages.map((lang) => {
                      const value = row.values[lang]
                      return (
                        <td key={lang} class="cell">
                          <button
                            type="button"
                            class="cell-button"
                            data-cell={`${lang}|${row.key}`}
                            disabled={!allowed}
                            aria-label={`${row.key} in ${lang}: ${value ?? 'missing'}`}
                            onClick={() => setEditing({ key: row.key, lang })}
                          >
                            {value ?? <span class="muted">—</span>}
                          </button>
                        </td>
                      )
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Pager paged={paged} label="Translation pages" />
      </section>
    </>
  )
}
