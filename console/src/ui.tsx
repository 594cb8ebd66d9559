import { createContext, type ComponentChildren, type JSX } from 'preact'
import { useCallback, useContext, useEffect, useId, useRef, useState } from 'preact/hooks'
import { ApiError, canWrite, get, type Operator, type Page, type Query } from './api'

export const OperatorContext = createContext<Operator | null>(null)

export function useOperator(): Operator | null {
  return useContext(OperatorContext)
}

/** Whether the signed-in operator's role may write here (the server checks again). */
export function useCanWrite(area: 'game' | 'operators' = 'game'): boolean {
  return canWrite(useOperator()?.role, area)
}

export const ROLE_HINT = 'Your role cannot do this: ask an owner'

// ---- time: UTC on the page, the reader's local time on hover ----

const pad = (n: number) => String(n).padStart(2, '0')

export function utc(iso: string): string {
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return iso
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(
    d.getUTCMinutes(),
  )}:${pad(d.getUTCSeconds())} UTC`
}

export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span class="muted">—</span>
  return (
    <time dateTime={iso} title={`Local time: ${new Date(iso).toLocaleString()}`}>
      {utc(iso)}
    </time>
  )
}

// ---- loading ----

export interface Loaded<T> {
  data: T | undefined
  error: unknown
  loading: boolean
  reload: () => void
}

export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true })
  const [tick, setTick] = useState(0)
  useEffect(() => {
    let live = true
    setState((s) => ({ ...s, loading: true }))
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error) => live && setState({ error, loading: false }),
    )
    return () => {
      live = false
    }
  }, [...deps, tick])
  return { data: state.data, error: state.error, loading: state.loading, reload: () => setTick((n) => n + 1) }
}

export function errorText(error: unknown): string {
  if (error instanceof ApiError) {
    const details = error.details.map((d) => `${d.path || '/'}: ${d.message}`).join('; ')
    return `${error.message}${details && !error.message.includes(details) ? ` (${details})` : ''} [${error.code}]`
  }
  return error instanceof Error ? error.message : String(error)
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null
  return (
    <p class="error" role="alert">
      {errorText(error)}
    </p>
  )
}

export function Loading({ loaded }: { loaded: Loaded<unknown> }) {
  if (loaded.error) return <ErrorNote error={loaded.error} />
  if (loaded.loading && loaded.data === undefined) return <p class="muted">Loading…</p>
  return null
}

// ---- actions ----

/** Runs an async action: busy while it runs, its error shown, `done` told of success. */
export function useAction() {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const [notice, setNotice] = useState('')
  const run = useCallback(async (action: () => Promise<unknown>, success = '') => {
    setBusy(true)
    setError(null)
    setNotice('')
    try {
      await action()
      setNotice(success)
      return true
    } catch (caught) {
      setError(caught)
      return false
    } finally {
      setBusy(false)
    }
  }, [])
  return { busy, error, notice, run, setError }
}

export function Notice({ text }: { text: string }) {
  return (
    <p class="notice" role="status">
      {text}
    </p>
  )
}

interface ButtonProps extends Omit<JSX.ButtonHTMLAttributes<HTMLButtonElement>, 'onClick'> {
  onClick: () => unknown
  write?: boolean | 'operators'
  danger?: boolean
  children: ComponentChildren
}

/** A button for a write: disabled, with a reason, when the operator's role may not make it. */
export function WriteButton({ onClick, write = true, danger, children, disabled, ...rest }: ButtonProps) {
  const allowed = useCanWrite(write === 'operators' ? 'operators' : 'game')
  return (
    <button
      type="button"
      class={danger ? 'danger' : undefined}
      disabled={!!disabled || !allowed}
      title={allowed ? undefined : ROLE_HINT}
      onClick={() => onClick()}
      {...rest}
    >
      {children}
    </button>
  )
}

/**
 * A destructive action asks once more in place: the first press shows "Confirm …" and "Cancel",
 * and keyboard focus moves to the confirm button.
 */
export function ConfirmButton({
  label,
  confirmLabel,
  onConfirm,
  disabled,
  area = 'game',
}: {
  label: string
  confirmLabel?: string
  onConfirm: () => unknown
  disabled?: boolean
  area?: 'game' | 'operators'
}) {
  const [asking, setAsking] = useState(false)
  const confirmRef = useRef<HTMLButtonElement>(null)
  const allowed = useCanWrite(area)
  useEffect(() => {
    if (asking) confirmRef.current?.focus()
  }, [asking])
  if (!asking) {
    return (
      <button
        type="button"
        class="danger"
        disabled={!!disabled || !allowed}
        title={allowed ? undefined : ROLE_HINT}
        onClick={() => setAsking(true)}
      >
        {label}
      </button>
    )
  }
  return (
    <span class="confirm" role="group" aria-label={`Confirm ${label}`}>
      <button
        type="button"
        class="danger"
        ref={confirmRef}
        onClick={() => {
          setAsking(false)
          onConfirm()
        }}
      >
        {confirmLabel ?? `Confirm ${label.toLowerCase()}`}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  )
}

// ---- forms ----

type InputProps = Omit<JSX.InputHTMLAttributes<HTMLInputElement>, 'value' | 'onInput' | 'label'>

export function TextField({
  label,
  value,
  onValue,
  hint,
  ...rest
}: InputProps & { label: string; value: string; onValue: (value: string) => void; hint?: string }) {
  // The field's name is its label alone; the hint is its description (so "Code" names the code field).
  const id = useId()
  return (
    <label class="field">
      <span id={`${id}-label`}>{label}</span>
      <input
        value={value}
        onInput={(e) => onValue(e.currentTarget.value)}
        aria-labelledby={`${id}-label`}
        aria-describedby={hint ? `${id}-hint` : undefined}
        {...rest}
      />
      {hint && (
        <small class="muted" id={`${id}-hint`}>
          {hint}
        </small>
      )}
    </label>
  )
}

export function TextArea({
  label,
  value,
  onValue,
  rows = 4,
  invalid,
}: {
  label: string
  value: string
  onValue: (value: string) => void
  rows?: number
  invalid?: boolean
}) {
  return (
    <label class="field wide">
      <span>{label}</span>
      <textarea
        rows={rows}
        value={value}
        aria-invalid={invalid ? 'true' : undefined}
        spellcheck={false}
        onInput={(e) => onValue(e.currentTarget.value)}
      />
    </label>
  )
}

export function SelectField<T extends string>({
  label,
  value,
  options,
  onValue,
}: {
  label: string
  value: T
  options: readonly T[] | ReadonlyArray<readonly [T, string]>
  onValue: (value: T) => void
}) {
  // Named by its label alone: a label wrapping a select would also lend it the options' text.
  const id = useId()
  return (
    <label class="field">
      <span id={`${id}-label`}>{label}</span>
      <select value={value} aria-labelledby={`${id}-label`} onChange={(e) => onValue(e.currentTarget.value as T)}>
        {options.map((option) => {
          const [v, text] = typeof option === 'string' ? [option, option || 'any'] : option
          return (
            <option key={v} value={v}>
              {text}
            </option>
          )
        })}
      </select>
    </label>
  )
}

export function CheckField({
  label,
  checked,
  onValue,
}: {
  label: string
  checked: boolean
  onValue: (v: boolean) => void
}) {
  return (
    <label class="check">
      <input type="checkbox" checked={checked} onChange={(e) => onValue(e.currentTarget.checked)} />
      <span>{label}</span>
    </label>
  )
}

/** A form whose submit button is "Save", disabled for a role that may not write. */
export function SaveForm({
  onSave,
  children,
  label,
  area = 'game',
  disabled,
  busy,
}: {
  onSave: () => unknown
  children: ComponentChildren
  label?: string
  area?: 'game' | 'operators'
  disabled?: boolean
  busy?: boolean
}) {
  const allowed = useCanWrite(area)
  return (
    <form
      class="form"
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault()
        if (allowed && !disabled && !busy) onSave()
      }}
    >
      {children}
      <div class="actions">
        <button
          type="submit"
          class="primary"
          disabled={!allowed || !!disabled || !!busy}
          title={allowed ? undefined : ROLE_HINT}
        >
          Save
        </button>
      </div>
    </form>
  )
}

/** An integer field's text, or null when empty; NaN text is left to the server to refuse by name. */
export function intOrNull(text: string): number | null {
  return text.trim() === '' ? null : Number(text)
}

// ---- lists with cursors ----

export interface Column<T> {
  label: string
  render: (item: T) => ComponentChildren
}

/** One page of an admin list and the cursors back to the pages before it. */
export function usePaged<T>(path: string, query: Query, limit = 25) {
  const [cursors, setCursors] = useState<string[]>([])
  const key = JSON.stringify([path, query])
  useEffect(() => setCursors([]), [key])
  const cursor = cursors[cursors.length - 1]
  const loaded = useLoad(() => get<Page<T>>(path, { ...query, limit, cursor }), [key, cursor])
  return {
    ...loaded,
    page: cursors.length + 1,
    next: () => loaded.data?.nextCursor && setCursors([...cursors, loaded.data.nextCursor]),
    previous: () => setCursors(cursors.slice(0, -1)),
    first: () => setCursors([]),
  }
}

/** A table of items, one column per field; its caption is for screen readers. */
export function Table<T>({ items, columns, caption }: { items: T[]; columns: Array<Column<T>>; caption: string }) {
  return (
    <div class="table-wrap">
      <table>
        <caption class="sr-only">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.label} scope="col">
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {items.map((item, i) => (
            <tr key={i}>
              {columns.map((c) => (
                <td key={c.label}>{c.render(item)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

export function PagedTable<T>({
  paged,
  columns,
  caption,
  empty = 'Nothing here yet.',
}: {
  paged: ReturnType<typeof usePaged<T>>
  columns: Array<Column<T>>
  caption: string
  empty?: string
}) {
  const items = paged.data?.items ?? []
  return (
    <section class="list">
      <Loading loaded={paged} />
      {paged.data && items.length === 0 && paged.page === 1 ? (
        <p class="muted">{empty}</p>
      ) : (
        <Table items={items} columns={columns} caption={caption} />
      )}
      <Pager paged={paged} label={`${caption} pages`} />
    </section>
  )
}

/** Previous and next page of a cursor-paged list (back through the cursors already seen). */
export function Pager({ paged, label }: { paged: ReturnType<typeof usePaged<unknown>>; label: string }) {
  return (
    <nav class="pager" aria-label={label}>
      <button type="button" disabled={paged.page === 1} onClick={paged.previous}>
        Previous page
      </button>
      <span>Page {paged.page}</span>
      <button type="button" disabled={!paged.data?.nextCursor} onClick={paged.next}>
        Next page
      </button>
    </nav>
  )
}

export function Title({ children, actions }: { children: ComponentChildren; actions?: ComponentChildren }) {
  useEffect(() => {
    document.title = `${typeof children === 'string' ? children : 'Outpost'} · Outpost console`
  }, [children])
  return (
    <header class="page-head">
      <h1 tabIndex={-1} id="page-title">
        {children}
      </h1>
      {actions && <div class="actions">{actions}</div>}
    </header>
  )
}

export function Json({ value }: { value: unknown }) {
  return <pre class="json">{JSON.stringify(value, null, 2)}</pre>
}

export const link = (path: string) => `#${path}`
