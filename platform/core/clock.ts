import fp from 'fastify-plugin'
import { badRequest } from './errors.js'

/** The one source of time: tests pass a clock they can move (resets, expiry, scheduling). */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number
}

/** The real clock; tests hand in a clock they move by hand instead. */
export const systemClock: Clock = { now: () => Date.now() }

declare module 'fastify' {
  interface FastifyInstance {
    clock: Clock
  }
}

export default fp<{ clock?: Clock }>(
  async (app, opts) => {
    app.decorate('clock', opts.clock ?? systemClock)
  },
  { name: 'clock' },
)

/** Timestamps are stored as epoch milliseconds and answered as ISO 8601 UTC with milliseconds. */
export function toIso(ms: number): string {
  return new Date(ms).toISOString()
}

/** For the nullable times (a session without refresh, a user never banned) the API answers with null. */
export function toIsoOrNull(ms: number | null): string | null {
  return ms === null ? null : toIso(ms)
}

/**
 * An ISO 8601 input (`path` as `body/field` or `querystring/field`) as epoch ms. The schema checked
 * the form; this catches what Ajv's format lets through and the calendar does not (a leap second).
 */
export function parseIsoTime(raw: string, path: string): number
export function parseIsoTime(raw: string | undefined, path: string): number | undefined
export function parseIsoTime(raw: string | undefined, path: string): number | undefined {
  if (raw === undefined) return undefined
  const ms = Date.parse(raw)
  if (!Number.isFinite(ms))
    throw badRequest(`${path} must be a valid ISO 8601 date-time`, path.slice(path.indexOf('/')))
  return ms
}
