// Writes: the action hook, and the buttons that are disabled, with a reason, for a role that may not write.
import type { ComponentChildren, JSX } from 'preact'
import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import type { Area } from '../api'
import { ROLE_HINT, useCanWrite } from './operator'

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
  area?: Area
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
