import fp from 'fastify-plugin'

/** The one source of time: tests pass a clock they can move (resets, expiry, scheduling). */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number
}

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

export function toIsoOrNull(ms: number | null): string | null {
  return ms === null ? null : toIso(ms)
}
