// UTC days as the analytics tables hold them (days since the epoch) and as the API writes them.
import { badRequest } from '../../platform/core/errors.js'
import { DEFAULT_RANGE_DAYS, MAX_RANGE_DAYS } from './schemas.js'

/** Analytics counts in UTC days: every instance buckets alike. */
export const DAY_MS = 86_400_000

/** A time's day number, the key analytics rows are stored under. */
export const dayOf = (ms: number) => Math.floor(ms / DAY_MS)
/** A day's first millisecond, for range queries. */
export const dayStart = (day: number) => day * DAY_MS
/** A day as the YYYY-MM-DD the API answers with. */
export const dateOf = (day: number) => new Date(dayStart(day)).toISOString().slice(0, 10)

/** A `YYYY-MM-DD` query value as a day, or 400 naming the parameter when it is no calendar date. */
export function parseDate(text: string, name: string): number {
  const ms = Date.parse(`${text}T00:00:00.000Z`)
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text) {
    throw badRequest(`querystring/${name} must be a calendar date written YYYY-MM-DD, e.g. 2026-11-22`, `/${name}`)
  }
  return dayOf(ms)
}

/**
 * The inclusive day range of a query: `to` defaults to today, `from` to 29 days before `to`. `from`
 * after `to` and ranges over MAX_RANGE_DAYS are 400s that say what to send instead.
 */
export function dayRange(query: { from?: string; to?: string }, now: number): { from: number; to: number } {
  const to = query.to === undefined ? dayOf(now) : parseDate(query.to, 'to')
  const from = query.from === undefined ? to - (DEFAULT_RANGE_DAYS - 1) : parseDate(query.from, 'from')
  if (from > to) throw badRequest(`from (${dateOf(from)}) is after to (${dateOf(to)}): send from <= to`, '/from')
  const days = to - from + 1
  if (days > MAX_RANGE_DAYS) {
    throw badRequest(
      `The range from ${dateOf(from)} to ${dateOf(to)} holds ${days} days; at most ${MAX_RANGE_DAYS} may be asked for at once`,
      '/from',
    )
  }
  return { from, to }
}
