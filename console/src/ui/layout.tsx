// What every page is made of: its title (with its actions) and raw JSON where no view is better.
import type { ComponentChildren } from 'preact'
import { useEffect } from 'preact/hooks'
import { useGame } from './game'

export function Title({ children, actions }: { children: ComponentChildren; actions?: ComponentChildren }) {
  const { name } = useGame()
  useEffect(() => {
    document.title = `${typeof children === 'string' ? children : 'Outpost'} · ${name} · Outpost console`
  }, [children, name])
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
