// Form fields, each named by its label, and the "Save" form.
import type { ComponentChildren, JSX } from 'preact'
import { useId } from 'preact/hooks'
import type { Area } from '../api'
import { ROLE_HINT, useCanWrite } from './operator'

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

/**
 * A form whose submit button is "Save", or the name of what it does ("Ban", "Grant"), disabled for a
 * role that may not write.
 */
export function SaveForm({
  onSave,
  children,
  label,
  submit = 'Save',
  area = 'game',
  disabled,
  busy,
}: {
  onSave: () => unknown
  children: ComponentChildren
  label?: string
  /** The submit button's text: the action's verb where "Save" would hide what it does. */
  submit?: string
  area?: Area
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
          {submit}
        </button>
      </div>
    </form>
  )
}

/** An integer field's text, or null when empty; NaN text is left to the server to refuse by name. */
export function intOrNull(text: string): number | null {
  return text.trim() === '' ? null : Number(text)
}
