import { setImmediate as immediate, setTimeout as sleep } from 'node:timers/promises'
import { Pool } from 'undici'
import type { Scenario } from './scenarios.js'

/**
 * An open-loop load: request i is due at `i / rate` seconds from the start, whatever the answers to
 * the ones before it do, and its latency runs from that scheduled time, not from when it was sent. A
 * closed loop (autocannon: each connection sends its next request when the last one is answered)
 * sends less while the server stalls, so its percentiles leave out the requests that would have
 * waited (coordinated omission). Bounded: `warmup` + `duration` seconds of schedule, at most `maxInFlight`
 * requests outstanding (a request due while that many are is dropped and counts as infinitely slow),
 * each one given up after `timeoutMs`.
 */

export interface OpenLoopOptions {
  url: string
  /** Requests per second. */
  rate: number
  /** Seconds of schedule measured. */
  duration: number
  /** Seconds of schedule before those, at the same rate, not counted (connections opened, code warm). */
  warmup: number
  /** Keep-alive connections to the server (a request waits for a free one, its wait counted). */
  connections: number
  maxInFlight: number
  timeoutMs: number
  scenario: Pick<Scenario, 'next' | 'onResponse'>
}

export interface OpenLoopResult {
  rate: number
  duration: number
  /** Requests the measured schedule held (the warm-up's left out of every count below). */
  scheduled: number
  /** Answered (any status). */
  completed: number
  /** Due while `maxInFlight` were outstanding: not sent. */
  dropped: number
  /** Sent more than `LATE_MS` after their scheduled time (the load generator fell behind). */
  late: number
  non2xx: number
  /** Failed or timed out. */
  errors: number
  /** From the scheduled time, in ms; dropped and failed requests count as infinitely slow. */
  p50: number
  p99: number
  max: number
}

/** A send this far behind its schedule is reported as late (its latency counts from the schedule anyway). */
export const LATE_MS = 1

/** When request `i` is due, in ms from the start. */
export const scheduledAt = (i: number, rate: number) => (i * 1000) / rate

/** How many requests are due `elapsedMs` into the run (those scheduled at or before it), at most `total`. */
export function dueCount(elapsedMs: number, rate: number, total: number): number {
  if (elapsedMs < 0) return 0
  return Math.min(total, Math.floor((elapsedMs * rate) / 1000) + 1)
}

/** The requests of `duration` seconds at `rate` per second. */
export const scheduleSize = (rate: number, duration: number) => Math.max(0, Math.floor(rate * duration))

/**
 * The `q` quantile (nearest rank) of the latencies with `missing` more requests that never answered
 * (dropped or failed), counted as infinitely slow: with more than 1 % missing, p99 is infinite.
 */
export function quantileWithMissing(latencies: number[], missing: number, q: number): number {
  const n = latencies.length + missing
  if (!n) return Number.NaN
  const sorted = [...latencies].sort((a, b) => a - b)
  const rank = Math.max(1, Math.ceil(q * n))
  return rank <= sorted.length ? sorted[rank - 1]! : Number.POSITIVE_INFINITY
}

/** Runs the schedule against `options.url`; resolves when every sent request is answered or given up. */
export async function runOpenLoop(options: OpenLoopOptions): Promise<OpenLoopResult> {
  const { rate, duration } = options
  if (!(rate > 0)) throw new Error(`open loop: the rate must be > 0, not ${rate}`)
  const warm = scheduleSize(rate, options.warmup)
  const total = warm + scheduleSize(rate, duration)
  const pool = new Pool(options.url, {
    connections: options.connections,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  })
  const latencies: number[] = []
  const counts = { completed: 0, dropped: 0, late: 0, non2xx: 0, errors: 0 }
  const pending = new Set<Promise<void>>()
  const send = (i: number, start: number) => {
    const due = start + scheduledAt(i, rate)
    const counted = i >= warm
    if (pending.size >= options.maxInFlight) {
      if (counted) counts.dropped++
      return
    }
    if (counted && performance.now() - due > LATE_MS) counts.late++
    const ctx: Record<string, unknown> = {}
    const req = options.scenario.next(ctx)
    const request = (async () => {
      try {
        const res = await pool.request({
          path: req.path,
          method: req.method as 'GET',
          headers: req.headers,
          body: req.body,
        })
        const body = await res.body.text()
        options.scenario.onResponse?.(res.statusCode, body, ctx)
        if (!counted) return
        latencies.push(performance.now() - due)
        counts.completed++
        if (res.statusCode < 200 || res.statusCode >= 300) counts.non2xx++
      } catch {
        if (counted) counts.errors++
      }
    })()
    pending.add(request)
    void request.finally(() => pending.delete(request))
  }
  const start = performance.now()
  let sent = 0
  try {
    while (sent < total) {
      const due = dueCount(performance.now() - start, rate, total)
      for (; sent < due; sent++) send(sent, start)
      // Within a millisecond of the next send, spin (setImmediate lets answers in between): a timer
      // fires a millisecond or more late, which would count against the server. The load core is ours.
      const wait = start + scheduledAt(sent, rate) - performance.now()
      if (sent < total) await (wait > 1.5 ? sleep(wait - 1) : immediate())
    }
    await Promise.all(pending)
  } finally {
    await pool.close()
  }
  const missing = counts.dropped + counts.errors
  return {
    rate,
    duration,
    scheduled: total - warm,
    ...counts,
    p50: quantileWithMissing(latencies, missing, 0.5),
    p99: quantileWithMissing(latencies, missing, 0.99),
    max: missing ? Number.POSITIVE_INFINITY : Math.max(0, ...latencies),
  }
}
