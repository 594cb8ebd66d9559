// A search-as-you-type field (the ARIA combobox pattern): the options follow what is typed, arrow keys
// move through them, Enter or a click picks one, Escape closes the list.
import type { ComponentChildren } from 'preact'
import { useEffect, useId, useState } from 'preact/hooks'

export interface Option {
  value: string
  label: string
  detail?: ComponentChildren
}

export function Combobox({
  label,
  text,
  onText,
  options,
  onPick,
  hint,
  busy,
  empty = 'No match',
  disabled,
}: {
  label: string
  text: string
  onText: (text: string) => void
  /** The options for the text typed so far (the caller searches). */
  options: Option[]
  onPick: (option: Option) => void
  hint?: string
  busy?: boolean
  empty?: string
  disabled?: boolean
}) {
  const id = useId()
  const [open, setOpen] = useState(false)
  const [active, setActive] = useState(0)
  useEffect(() => setActive(0), [options])
  const listId = `${id}-list`
  const showList = open && text.trim() !== ''
  const pick = (option: Option | undefined) => {
    if (!option) return
    onPick(option)
    setOpen(false)
  }
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault()
      setOpen(true)
      const step = e.key === 'ArrowDown' ? 1 : -1
      setActive((i) => (options.length ? (i + step + options.length) % options.length : 0))
    } else if (e.key === 'Enter' && showList && options.length > 0) {
      e.preventDefault()
      pick(options[active])
    } else if (e.key === 'Escape' && open) {
      e.preventDefault()
      setOpen(false)
    }
  }
  return (
    <div class="field combo">
      <label id={`${id}-label`} for={`${id}-input`}>
        {label}
      </label>
      <input
        id={`${id}-input`}
        role="combobox"
        autoComplete="off"
        spellcheck={false}
        value={text}
        disabled={disabled}
        aria-autocomplete="list"
        aria-expanded={showList}
        aria-controls={listId}
        aria-activedescendant={showList && options.length > 0 ? `${id}-opt-${active}` : undefined}
        aria-describedby={hint ? `${id}-hint` : undefined}
        onInput={(e) => {
          onText(e.currentTarget.value)
          setOpen(true)
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => setTimeout(() => setOpen(false), 150)}
        onKeyDown={onKeyDown}
      />
      {hint && (
        <small class="muted" id={`${id}-hint`}>
          {hint}
        </small>
      )}
      <ul class="combo-list" id={listId} role="listbox" aria-labelledby={`${id}-label`} hidden={!showList}>
        {options.map((option, i) => (
          <li
            key={option.value}
            id={`${id}-opt-${i}`}
            role="option"
            aria-selected={i === active}
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => pick(option)}
          >
            <span>{option.label}</span> {option.detail && <span class="muted small">{option.detail}</span>}
          </li>
        ))}
        {options.length === 0 && (
          <li class="muted small" role="presentation">
            {busy ? 'Searching…' : empty}
          </li>
        )}
      </ul>
    </div>
  )
}
