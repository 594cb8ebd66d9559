// What the two webhook pages show of an endpoint: its name for labels, its delivery health, and the
// cells that a narrow screen stacks with their labels.
import { Fragment, type ComponentChildren } from 'preact'
import type { Webhook } from '../../../console/src/types'
import { Time } from '../../../console/src/ui'

/** A webhook as buttons name it: short, and unique (its URL's fingerprint; the URL itself is masked). */
export const hookName = (w: Webhook) => `webhook #${w.urlFingerprint}`

/** A masked URL that may wrap before each slash of its path rather than anywhere. */
export function MaskedUrl({ url }: { url: string }) {
  const origin = /^[a-z]+:\/\/[^/]+/i.exec(url)?.[0] ?? ''
  const path = url.slice(origin.length).split(/(?=\/)/)
  return (
    <>
      {origin}
      {path.map((part, i) => (
        <Fragment key={i}>
          <wbr />
          {part}
        </Fragment>
      ))}
    </>
  )
}

/** What a cell holds, said before it where a narrow screen stacks the cells (`.stack-table`). */
export function Cell({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <>
      <span class="cell-label" aria-hidden="true">
        {label}
      </span>
      {children}
    </>
  )
}

/** How an endpoint's deliveries go: a dead one reads "failing" with its count, never just "enabled". */
export function Health({ hook }: { hook: Webhook }) {
  const h = hook.health
  const last = h.lastAttemptAt && (
    <small class="muted">
      {' '}
      last {h.lastOutcome === 'delivered' ? 'delivered' : `failed (${h.lastResponseCode ?? 'no answer'})`}{' '}
      <Time iso={h.lastAttemptAt} />
    </small>
  )
  const waiting = h.waiting > 0 && <small class="muted"> · {h.waiting} waiting</small>
  switch (h.state) {
    case 'healthy':
      return (
        <span>
          <span class="badge good">healthy</span>
          {last}
          {waiting}
        </span>
      )
    case 'failing':
      return (
        <span>
          <span class="badge bad">failing</span>{' '}
          <small>
            {h.consecutiveFailures} failed in a row{h.lastDeliveredAt ? '' : ', never delivered'}
          </small>
          {last}
          {waiting}
        </span>
      )
    case 'disabled':
      return (
        <span>
          <span class="badge">disabled</span>
          {hook.disabledReason && <small class="muted"> {hook.disabledReason}</small>}
          {waiting}
        </span>
      )
    case 'untried':
      return (
        <span>
          <span class="badge">no delivery yet</span>
          {waiting}
        </span>
      )
  }
}
