// Tabs (the ARIA pattern): one panel shown at a time; arrow keys, Home and End move between the tabs.
import type { ComponentChildren } from 'preact'
import { useId, useRef } from 'preact/hooks'

export function Tabs<K extends string>({
  label,
  tabs,
  value,
  onValue,
  children,
}: {
  label: string
  tabs: ReadonlyArray<readonly [K, string]>
  value: K
  onValue: (key: K) => void
  /** The selected tab's panel. */
  children: ComponentChildren
}) {
  const id = useId()
  const list = useRef<HTMLDivElement>(null)
  const onKeyDown = (e: KeyboardEvent) => {
    const at = tabs.findIndex(([key]) => key === value)
    const next =
      e.key === 'ArrowRight'
        ? (at + 1) % tabs.length
        : e.key === 'ArrowLeft'
          ? (at - 1 + tabs.length) % tabs.length
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? tabs.length - 1
              : -1
    if (next < 0) return
    e.preventDefault()
    onValue(tabs[next][0])
    setTimeout(() => list.current?.querySelector<HTMLButtonElement>('[aria-selected="true"]')?.focus())
  }
  return (
    <>
      <div class="tabs" role="tablist" aria-label={label} ref={list} onKeyDown={onKeyDown}>
        {tabs.map(([key, text]) => (
          <button
            key={key}
            type="button"
            role="tab"
            id={`${id}-tab-${key}`}
            aria-selected={key === value}
            aria-controls={`${id}-panel`}
            tabIndex={key === value ? 0 : -1}
            onClick={() => onValue(key)}
          >
            {text}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${id}-panel`} aria-labelledby={`${id}-tab-${value}`} tabIndex={0} class="tab-panel">
        {children}
      </div>
    </>
  )
}
