import { createRequire } from 'node:module'
import { isIP } from 'node:net'
import fp from 'fastify-plugin'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from '@fastify/type-provider-typebox'
import {
  AggregatorRegistry,
  Counter,
  Gauge,
  Registry,
  type MetricObjectWithValues,
  type MetricValue,
} from 'prom-client'
import type { DbFailure, DbObserver } from '../../db/index.js'
import { poolUsage } from '../../db/index.js'
import type { Db } from '../../db/types.js'
import { errors } from '../../schemas/common.js'
import { AppError, sendError } from './errors.js'
import { secretChecker } from './secrets.js'

/**
 * Prometheus metrics (`GET /metrics`). This file owns every metric: features never import
 * prom-client, they call the typed counters on `app.metrics` from their handlers (services stay free
 * of Fastify and of metrics), or hand a plain callback to a class of theirs (the caches, the e-mail
 * worker). Each app has its own registry, so the many apps a test process builds never collide.
 *
 * The process metrics (event-loop lag, heap, RSS, CPU, GC) belong to the process, not to an app: they
 * live in one registry per process, created on first use, and are appended to every app's answer.
 *
 * Several workers (node:cluster): each worker answers `metricsJson()`, and the primary sums them with
 * `aggregateWorkers` (prom-client's AggregatorRegistry: counters and histograms summed, the
 * per-process gauges too), so one scrape sees the whole instance.
 */

/** The route label of a request that matched no route: never the raw URL (one label per URL would be unbounded). */
export const UNMATCHED_ROUTE = '(unmatched)'

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/**
 * prom-client's default process collectors (its `collectDefaultMetrics`), all but one: the GC
 * duration histogram. Its observer turns every collection into a performance entry handled in
 * JavaScript, and on a 1 MB body (many young-generation collections) that measured 13.5 → 20.5 ms of
 * server CPU. prom-client offers no switch for one collector, so they are named here (prom-client is
 * pinned to a minor line for these paths).
 */
const PROCESS_COLLECTORS = [
  'processCpuTotal',
  'processStartTime',
  'osMemoryHeap',
  'processOpenFileDescriptors',
  'processMaxFileDescriptors',
  'eventLoopLag',
  ...(typeof process.getActiveResourcesInfo === 'function' ? ['processResources'] : []),
  'processHandles',
  'processRequests',
  'heapSizeAndUsed',
  'heapSpacesSizeAndUsed',
  'version',
]
type Collector = (registry: Registry, config: { eventLoopMonitoringPrecision: number }) => void
const requireFromHere = createRequire(import.meta.url)

let processRegistry: Registry | undefined
/** Node's process metrics, once per process: each collection starts its own event-loop observer. */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry()
    for (const name of PROCESS_COLLECTORS) {
      const collect = requireFromHere(`prom-client/lib/metrics/${name}`) as Collector
      collect(processRegistry, { eventLoopMonitoringPrecision: 10 })
    }
  }
  return processRegistry
}

/** An e-mail queue count per status, read from the database when Prometheus scrapes. */
export type EmailQueueSource = () => Promise<Record<string, number>>

export type CacheName = 'leaderboard_top' | 'remote-config' | 'localization' | 'news'
/** What a cache calls on each lookup: `true` when it answered from memory without a database read. */
/** How a player's account signs up or in. */
export type AccountKind = 'anonymous' | 'email' | 'apple' | 'google'

export type CacheLookup = (hit: boolean) => void

type Family = MetricObjectWithValues<MetricValue<string>>
/** A sample as prom-client's histograms give it: `metricName` names the `_bucket`, `_sum` or `_count` line. */
type Sample = { labels: Record<string, string | number>; value: number; metricName?: string }

/**
 * Registers a family whose samples are read from plain numbers when scraped. prom-client's own
 * Counter and Histogram check and hash the label object on every `inc` and `observe`, also through
 * a child from `labels()`: on the per-request paths that measured 6–8 µs of the 45 µs a cached
 * request cost. The family has prom-client's metric form (names, labels, bucket layout), so the
 * registry's text exposition and the workers' sum (AggregatorRegistry) treat it as one of its own.
 */
function registerFamily(
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
class PlainCounter {
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

/** The count, the sum of durations and the per-bucket counts of one route, method and status. */
interface RequestCounts {
  labels: { route: string; method: string; status: string }
  count: number
  sum: number
  /** Not cumulative: `perBucket[i]` counts durations in (bound i-1, bound i]; the last one, above every bound. */
  perBucket: Float64Array
}

/** `http_requests_total` and `http_request_duration_seconds`: one map lookup and three additions per request. */
class RequestSeries {
  private readonly series = new Map<string, RequestCounts>()

  constructor(registry: Registry) {
    const clear = () => this.series.clear()
    registerFamily(
      registry,
      'http_requests_total',
      'HTTP requests answered, by route pattern, method and status',
      'counter',
      () => [...this.series.values()].map((s) => ({ labels: { ...s.labels }, value: s.count })),
      clear,
    )
    registerFamily(
      registry,
      'http_request_duration_seconds',
      'Time from the request to its answer, by route pattern, method and status',
      'histogram',
      () => [...this.series.values()].flatMap((s) => RequestSeries.histogramValues(s)),
      clear,
    )
  }

  record(route: string, method: string, status: number, seconds: number): void {
    const key = `${status} ${method} ${route}`
    let counts = this.series.get(key)
    if (!counts) {
      counts = {
        labels: { route, method, status: String(status) },
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

export class Metrics implements DbObserver {
  readonly registry = new Registry()

  private readonly requests = new RequestSeries(this.registry)
  private readonly dbErrors = new Counter({
    name: 'outpost_db_query_errors_total',
    help: 'Failed database statements: error, conflict (a unique key or deadlock settling a race), query_timeout, pool_timeout (no connection came free in DB_QUERY_TIMEOUT_MS)',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  })
  private readonly rateLimited = new Counter({
    name: 'outpost_rate_limit_rejections_total',
    help: 'Requests refused with the transient 429, by limit (player: per IP on the app API; admin)',
    labelNames: ['limit'] as const,
    registers: [this.registry],
  })
  private readonly cacheLookups = new PlainCounter(
    this.registry,
    'outpost_cache_lookups_total',
    'In-memory cache lookups (leaderboard top pages, content), by cache and result (hit: no database read)',
  )
  private readonly emailsSent = new Counter({
    name: 'outpost_emails_sent_total',
    help: 'E-mails the SMTP server accepted',
    registers: [this.registry],
  })
  private readonly emailFailures = new Counter({
    name: 'outpost_email_delivery_failures_total',
    help: 'Failed delivery attempts, by whether the e-mail will be retried (retry) or has failed for good (final)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  })
  private readonly signups = new Counter({
    name: 'outpost_signups_total',
    help: 'Accounts created, by kind (anonymous, email)',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  })
  private readonly signins = new Counter({
    name: 'outpost_signins_total',
    help: 'Successful sign-ins, by kind (anonymous, email, refresh)',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  })
  private readonly scoreSubmits = new Counter({
    name: 'outpost_score_submits_total',
    help: 'Scores accepted through the leaderboard submit routes (validated runs are counted apart)',
    registers: [this.registry],
  })
  private readonly validatedRuns = new Counter({
    name: 'outpost_validated_runs_total',
    help: 'Validated runs submitted, by outcome (accepted, sus: accepted and flagged, rejected)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  })
  private readonly crashReports = new Counter({
    name: 'outpost_crash_reports_total',
    help: 'Crash reports received, by type (CRASH, NON_FATAL, ANR)',
    labelNames: ['type'] as const,
    registers: [this.registry],
  })

  private emailQueueSource: EmailQueueSource | undefined
  private db: Db | undefined

  constructor() {
    // `collect` runs with the gauge as `this`: these read the current source and database.
    const emailQueue = () => this.emailQueueSource
    const watchedDb = () => this.db
    new Gauge({
      name: 'outpost_email_queue',
      help: 'E-mails in the queue by status, read from the database when scraped (every instance reports the same queue)',
      labelNames: ['status'] as const,
      registers: [this.registry],
      // Every worker reads the same queue: summed over the workers it would count each e-mail N times.
      aggregator: 'first',
      async collect() {
        const source = emailQueue()
        if (!source) return
        this.reset()
        // A database that does not answer must not fail the scrape: the other families still matter then.
        const counts = await source().catch(() => null)
        if (counts) for (const [status, count] of Object.entries(counts)) this.set({ status }, count)
      },
    })
    new Gauge({
      name: 'outpost_db_pool_connections',
      help: 'MySQL pool: connections handed out (in_use), callers waiting for one (waiting), the pool size (max)',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        const db = watchedDb()
        const usage = db && poolUsage(db)
        if (!usage) return
        this.set({ state: 'in_use' }, usage.inUse)
        this.set({ state: 'waiting' }, usage.waiting)
        this.set({ state: 'max' }, usage.size)
      },
    })
    // Every label value a family can take, at 0 from the start: a rate over a series that appears only
    // on its first event misses that event.
    for (const kind of ['error', 'conflict', 'query_timeout', 'pool_timeout']) this.dbErrors.inc({ kind }, 0)
    for (const limit of ['player', 'admin']) this.rateLimited.inc({ limit }, 0)
    for (const result of ['retry', 'final']) this.emailFailures.inc({ result }, 0)
    for (const kind of ['anonymous', 'email']) this.signups.inc({ kind }, 0)
    for (const kind of ['anonymous', 'email', 'refresh']) this.signins.inc({ kind }, 0)
    for (const outcome of ['accepted', 'sus', 'rejected']) this.validatedRuns.inc({ outcome }, 0)
    for (const type of ['CRASH', 'NON_FATAL', 'ANR']) this.crashReports.inc({ type }, 0)
  }

  /** The database whose pool use is reported (set by the db plugin). */
  watchDb(db: Db): void {
    this.db = db
  }

  queryFailed(kind: DbFailure): void {
    this.dbErrors.inc({ kind })
  }

  rateLimitRejected(limit: 'player' | 'admin'): void {
    this.rateLimited.inc({ limit })
  }

  /** The callback a cache reports its lookups to. */
  cacheLookup(cache: CacheName): CacheLookup {
    const hit = this.cacheLookups.of({ cache, result: 'hit' })
    const miss = this.cacheLookups.of({ cache, result: 'miss' })
    return (isHit) => {
      if (isHit) hit.value++
      else miss.value++
    }
  }

  /** The e-mail feature's queue count, read on each scrape. */
  setEmailQueueSource(source: EmailQueueSource): void {
    this.emailQueueSource = source
  }

  emailDelivered(outcome: 'sent' | 'retried' | 'failed'): void {
    if (outcome === 'sent') this.emailsSent.inc()
    else this.emailFailures.inc({ result: outcome === 'retried' ? 'retry' : 'final' })
  }

  signedUp(kind: AccountKind): void {
    this.signups.inc({ kind })
  }

  signedIn(kind: AccountKind | 'refresh'): void {
    this.signins.inc({ kind })
  }

  scoreSubmitted(): void {
    this.scoreSubmits.inc()
  }

  validatedRun(outcome: 'accepted' | 'sus' | 'rejected'): void {
    this.validatedRuns.inc({ outcome })
  }

  crashReported(type: string): void {
    this.crashReports.inc({ type })
  }

  /** One request answered: `route` is the matched pattern, or UNMATCHED_ROUTE. */
  requestAnswered(route: string, method: string, status: number, seconds: number): void {
    this.requests.record(route, method, status, seconds)
  }

  /** This process's metrics as JSON, the form a cluster primary sums (see `aggregateWorkers`). */
  async metricsJson(): Promise<MetricObjectWithValues<MetricValue<string>>[]> {
    const [own, process] = await Promise.all([this.registry.getMetricsAsJSON(), processMetrics().getMetricsAsJSON()])
    return [...own, ...process] as MetricObjectWithValues<MetricValue<string>>[]
  }

  /** The Prometheus text exposition of this app and its process. */
  async text(): Promise<string> {
    const [own, process] = await Promise.all([this.registry.metrics(), processMetrics().metrics()])
    return `${own}\n${process}`
  }
}

/**
 * Sums the workers' `metricsJson()` into one exposition (for a node:cluster primary), with
 * `outpost_metrics_workers` saying how many workers answered and how many were left out (a worker
 * that did not answer in time, or was restarting): a sum over fewer workers is labelled as such.
 */
export async function aggregateWorkers(
  perWorker: Array<MetricObjectWithValues<MetricValue<string>>[]>,
  missing = 0,
): Promise<{ contentType: string; text: string }> {
  const registry = AggregatorRegistry.aggregate(perWorker)
  const workers = new Gauge({
    name: 'outpost_metrics_workers',
    help: 'Workers of this instance whose metrics are in this answer (answered) and those left out (missing: no answer in time)',
    labelNames: ['state'] as const,
    registers: [registry],
  })
  workers.set({ state: 'answered' }, perWorker.length)
  workers.set({ state: 'missing' }, missing)
  return { contentType: registry.contentType, text: await registry.metrics() }
}

/** How long a worker answering /metrics waits for the primary's sum over all workers. */
export const INSTANCE_METRICS_TIMEOUT_MS = 3000
/** How long the primary waits for each worker's part of the sum: one that answers later is left out. */
export const WORKER_METRICS_TIMEOUT_MS = 1000

/** A loopback socket address: 127.0.0.0/8 or ::1, also in IPv4-mapped form. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address
  if (isIP(v4) === 4) return v4.startsWith('127.')
  return address === '::1'
}

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Metrics
  }
}

export default fp(
  async (app) => {
    const metrics = new Metrics()
    app.decorate('metrics', metrics)
    const token = app.config.METRICS_TOKEN
    const channel = app.cluster
    const tokenMatches = token ? secretChecker(token) : null

    // A callback hook: an async one would cost every request a promise.
    app.addHook('onResponse', (request, reply, done) => {
      metrics.requestAnswered(
        request.routeOptions.url ?? UNMATCHED_ROUTE,
        request.method,
        reply.statusCode,
        reply.elapsedTime / 1000,
      )
      done()
    })

    /**
     * With METRICS_TOKEN, the token from everyone; without it, only a caller on this machine. The
     * socket's own address decides, never X-Forwarded-For: a proxy on the same machine would make
     * every caller look local, so behind one set the token.
     */
    const guard = async (request: FastifyRequest, reply: FastifyReply) => {
      if (tokenMatches) {
        const header = request.headers.authorization
        const presented = typeof header === 'string' && /^bearer /i.test(header) ? header.slice(7).trim() : undefined
        if (!tokenMatches(presented)) {
          reply.header('www-authenticate', 'Bearer')
          return sendError(
            request,
            reply,
            new AppError(401, 'UNAUTHORIZED', 'Send the metrics token as Authorization: Bearer <METRICS_TOKEN>'),
          )
        }
      } else if (!isLoopback(request.socket.remoteAddress)) {
        return sendError(
          request,
          reply,
          new AppError(
            403,
            'FORBIDDEN',
            'Metrics are served only to this machine: set METRICS_TOKEN to scrape them from elsewhere',
          ),
        )
      }
    }

    app.get(
      '/metrics',
      {
        schema: {
          tags: ['Health'],
          summary: 'Prometheus metrics',
          description:
            'Prometheus text format (version 0.0.4): requests by route pattern, method and status with a latency ' +
            'histogram, process metrics, database errors and pool use, the e-mail queue, rate-limit rejections, ' +
            'cache hits and misses, sign-ups, sign-ins, score submits, validated runs and crash reports. With ' +
            'METRICS_TOKEN set, `Authorization: Bearer <METRICS_TOKEN>` is required (401 UNAUTHORIZED without it); ' +
            'without it only callers on the loopback address are answered (403 FORBIDDEN), judged by the socket ' +
            'address, never by X-Forwarded-For. No API key, no rate limit. With WORKERS > 1 the answer is the sum over ' +
            'all workers of the instance; `outpost_metrics_workers` says how many answered and how many were left out.',
          security: [],
          produces: ['text/plain'],
          response: {
            200: Type.String({ description: 'Prometheus text exposition' }),
            ...errors(401, 403),
          },
        },
        config: { public: true, probe: true },
        onRequest: guard,
      },
      async (request, reply) => {
        const text = channel ? await instanceText(request) : await metrics.text()
        return reply.type('text/plain; version=0.0.4; charset=utf-8').send(text)
      },
    )

    /**
     * In a cluster worker, the primary gathers every worker's metrics (this one's included, through
     * the `metrics` handler) and answers their sum. A primary that does not answer in time leaves
     * this worker's own metrics, said in the log: a scrape then sees one worker rather than nothing.
     */
    if (channel) channel.handle('metrics', () => metrics.metricsJson())
    async function instanceText(request: FastifyRequest): Promise<string> {
      try {
        const sum = await channel!.request<{ text: string }>('instance-metrics', null, INSTANCE_METRICS_TIMEOUT_MS)
        return sum.text
      } catch (err) {
        request.log.warn({ err }, "the cluster primary did not sum the metrics: answering this worker's own")
        return metrics.text()
      }
    }
  },
  { name: 'metrics', dependencies: ['config', 'errors', 'surfaces', 'cluster'] },
)
