// The day ranges the analytics pages offer, as contract §12 takes them: UTC days, `from`/`to` inclusive.
import type { Query } from '../api'

export const RANGES = [7, 30, 90] as const
export type Range = (typeof RANGES)[number]

const DAY_MS = 86_400_000
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/** The last `days` UTC days up to today. */
export function lastDays(days: number, now = Date.now()): { from: string; to: string } {
  return { from: isoDay(now - (days - 1) * DAY_MS), to: isoDay(now) }
}

/** A row of buttons, one per range; the pressed one is the range shown. */
export function RangeSwitch({ value, onValue }: { value: Range; onValue: (range: Range) => void }) {
  return (
    <div class="range" role="group" aria-label="Days shown">
      {RANGES.map((days) => (
        <button key={days} type="button" aria-pressed={days === value} onClick={() => onValue(days)}>
          {days} days
        </button>
      ))}
    </div>
  )
}

/** The query of a daily read over a range, less what is empty. */
export function rangeQuery(range: Range, extra: Query = {}): Query {
  return { ...lastDays(range), ...extra }
}
