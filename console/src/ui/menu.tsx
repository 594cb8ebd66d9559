// A row's actions behind one small "⋯" button: the menu opens under it, a destructive item asks once
// more in place, Escape or a click elsewhere closes it and gives the focus back to the button.
import { useEffect, useRef, useState } from 'preact/hooks'
import { ROLE_HINT, useCanWrite } from './operator'

export interface MenuItem {
  label: string
  onSelect: () => unknown
  /** Asks "confirmLabel" / "Cancel" before running. */
  confirmLabel?: string
  danger?: boolean
  /** A write: disabled for a role that may not make it. */
  write?: boolean
}

export function RowMenu({ name, items }: { name: string; items: MenuItem[] }) {
  const [open, setOpen] = useState(false)
  const [asking, setAsking] = useState<number | null>(null)
  const root = useRef<HTMLSpanElement>(null)
  const toggle = useRef<HTMLButtonElement>(null)
  const allowed = useCanWrite()
  const close = (focusToggle: boolean) => {
    setOpen(false)
    setAsking(null)
    if (focusToggle) toggle.current?.focus()
  }
  useEffect(() => {
    if (!open) return
    root.current?.querySelector<HTMLButtonElement>('[role="menuitem"]:not(:disabled)')?.focus()
    const outside = (e: MouseEvent) => {
      if (!root.current?.contains(e.target as Node)) close(false)
    }
    document.addEventListener('mousedown', outside)
    return () => document.removeEventListener('mousedown', outside)
  }, [open, asking])
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault()
      close(true)
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault()
      const buttons = [...(root.current?.querySelectorAll<HTMLButtonElement>('[role="menuitem"]:not(:disabled)') ?? [])]
      const at = buttons.indexOf(document.activeElement as HTMLButtonElement)
      buttons[(at + (e.key === 'ArrowDown' ? 1 : -1) + buttons.length) % buttons.length]?.focus()
    }
  }
  return (
    <span class="row-menu" ref={root} onKeyDown={onKeyDown}>
      <button
        type="button"
        class="small menu-button"
        ref={toggle}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-label={`Actions for ${name}`}
        onClick={() => (open ? close(false) : setOpen(true))}
      >
        ⋯
      </button>
      {open && (
        <span class="menu-pop" role="menu" aria-label={`Actions for ${name}`}>
          {items.map((item, i) => {
            const disabled = item.write !== false && !allowed
            if (asking === i)
              return (
                <span key={item.label} class="confirm" role="group" aria-label={`Confirm ${item.label.toLowerCase()}`}>
                  <button
                    type="button"
                    role="menuitem"
                    class="danger"
                    onClick={() => {
                      close(true)
                      item.onSelect()
                    }}
                  >
                    {item.confirmLabel}
                  </button>
                  <button type="button" role="menuitem" onClick={() => setAsking(null)}>
                    Cancel
                  </button>
                </span>
              )
            return (
              <button
                key={item.label}
                type="button"
                role="menuitem"
                class={item.danger ? 'danger' : undefined}
                disabled={disabled}
                title={disabled ? ROLE_HINT : undefined}
                onClick={() => {
                  if (item.confirmLabel) setAsking(i)
                  else {
                    close(true)
                    item.onSelect()
                  }
                }}
              >
                {item.label}
              </button>
            )
          })}
        </span>
      )}
    </span>
  )
}
