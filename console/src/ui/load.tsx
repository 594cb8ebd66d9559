// Loading data and showing what went wrong.
import { useEffect, useState } from 'preact/hooks'
import { ApiError } from '../api'

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
