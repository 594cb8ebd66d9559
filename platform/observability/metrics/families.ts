import { Registry, type Counter, type MetricObjectWithValues, type MetricValue } from 'prom-client'

/** The route label of a request that matched no route: never the raw URL (one label per URL would be unbounded). */
export const UNMATCHED_ROUTE = '(unmatched)'

/** What a cache calls on each lookup: `true` when it answered from memory without a database read. */
export type CacheLookup = (hit: boolean) => void

/** Seconds, from a cache hit (1 ms) to a slow import (10 s): one set so latencies compare across families. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

type Family = MetricObjectWithValues<MetricValue<string>>
/** A sample as prom-client's histograms give it: `metricName` names the `_bucket`, `_sum` or `_count` line. */
export type Sample = { labels: Record<string, string | number>; value: number; metricName?: string }

/**
 * Registers a family whose samples are read from plain numbers when scraped. prom-client's own
 * Counter and Histogram check and hash the label object on every `inc` and `observe`, also through
 * a child from `labels()`: on the per-request paths that measured 6–8 µs of the 45 µs a cached
 * request cost. The family has prom-client's metric form (names, labels, bucket layout), so the
 * registry's text exposition and the workers' sum (AggregatorRegistry) treat it as one of its own.
 */
export function registerFamily(
  registry: Registry,
  name: string,
  help: string,
  type: 'counter' | 'histogram',
  samples: () => Sample[],
  reset: () => void,
): void {
  const family = {
    name,
    help,
    type,
    aggregator: 'sum' as const,
    get: async (): Promise<Family> => ({ name, help, type, aggregator: 'sum', values: samples() }) as unknown as Family,
    reset,
  }
  // prom-client's registry takes any object of this shape; its types name only its own classes.
  registry.registerMetric(family as unknown as Counter)
}

/** A counter family in plain numbers, for counts taken on every request. */
export class PlainCounter {
  private readonly series = new Map<string, { labels: Record<string, string>; value: number }>()

  constructor(registry: Registry, name: string, help: string) {
    const samples = () => [...this.series.values()].map((s) => ({ labels: { ...s.labels }, value: s.value }))
    // A reset zeroes the series in place: callers keep the ones `of` gave them.
    const reset = () => this.series.forEach((s) => (s.value = 0))
    registerFamily(registry, name, help, 'counter', samples, reset)
  }

  /** The series of these labels (at 0 until counted): keep it, and add to it per event. */
  of(labels: Record<string, string>): { value: number } {
    const key = JSON.stringify(labels)
    let series = this.series.get(key)
    if (!series) this.series.set(key, (series = { labels, value: 0 }))
    return series
  }
}

/** The count, the sum of durations and the per-bucket counts of one route, method, status and game. */
interface RequestCounts {
  labels: { route: string; method: string; status: string; game: string }
  count: number
  sum: number
  /** Not cumulative: `perBucket[i]` counts durations in (bound i-1, bound i]; the last one, above every bound. */
  perBucket: Float64Array
}

/**
 * `http_requests_total` and `http_request_duration_seconds`: one map lookup and three additions per
 * request. The game is part of the key like the route (a game id is at most 32 characters of
 * `[a-z0-9-]`, so no key of one series can be another's).
 */
export class RequestSeries {
  private readonly series = new Map<string, RequestCounts>()

  constructor(registry: Registry) {
    const clear = () => this.series.clear()
    registerFamily(
      registry,
      'http_requests_total',
      'HTTP requests answered, by route pattern, method, status and game (empty: none was named)',
      'counter',
      () => [...this.series.values()].map((s) => ({ labels: { ...s.labels }, value: s.count })),
      clear,
    )
    registerFamily(
      registry,
      'http_request_duration_seconds',
      'Time from the request to its answer, by route pattern, method, status and game',
      'histogram',
      () => [...this.series.values()].flatMap((s) => RequestSeries.histogramValues(s)),
      clear,
    )
  }

  record(route: string, method: string, status: number, seconds: number, game: string): void {
    const key = `${status} ${method} ${game} ${route}`
    let counts = this.series.get(key)
    if (!counts) {
      counts = {
        labels: { route, method, status: String(status), game },
        count: 0,
        sum: 0,
        perBucket: new Float64Array(LATENCY_BUCKETS.length + 1),
      }
      this.series.set(key, counts)
    }
    counts.count++
    counts.sum += seconds
    let bucket = 0
    while (bucket < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[bucket]!) bucket++
    counts.perBucket[bucket]!++
  }

  /** One series in prom-client's histogram form: cumulative `_bucket` by `le`, then `_sum` and `_count`. */
  private static histogramValues(s: RequestCounts): Sample[] {
    const name = 'http_request_duration_seconds'
    let cumulative = 0
    const buckets = LATENCY_BUCKETS.map((le, i) => {
      cumulative += s.perBucket[i]!
      return { labels: { le, ...s.labels }, value: cumulative, metricName: `${name}_bucket` }
    })
    return [
      ...buckets,
      { labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: `${name}_bucket` },
      { labels: { ...s.labels }, value: s.sum, metricName: `${name}_sum` },
      { labels: { ...s.labels }, value: s.count, metricName: `${name}_count` },
    ]
  }
}
