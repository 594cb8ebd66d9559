import { Counter, Gauge, Registry, type MetricObjectWithValues, type MetricValue } from 'prom-client'
import type { DbFailure, DbObserver } from '../../../db/index.js'
import { databaseHosts, poolUsage } from '../../../db/index.js'
import { statementTapOf, type StatementTap } from '../../../db/statements.js'
import { readHostsBeside } from '../../../db/read-hosts.js'
import type { Db } from '../../../db/types.js'
import type { FeatureManifest } from '../../core/features.js'
import { PlainCounter, RequestSeries, registerFamily, type CacheLookup } from './families.js'

/**
 * Prometheus metrics (`GET /metrics`). This module owns prom-client: the platform and the features count on
 * the methods below; a feature declares its counters, gauges and caches in its manifest (its
 * manifest.ts) and counts through the handle `counter(name)` gives it (services stay free of Fastify
 * and of metrics). Each app has its own registry, so the many apps a test process builds never collide.
 *
 * The process metrics (event-loop lag, heap, RSS, CPU, GC) belong to the process, not to an app: the
 * process makes their registry once (process.ts) and every app appends it to its answer.
 *
 * Several workers (node:cluster): each worker answers `metricsJson()`, and the primary sums them with
 * `aggregateWorkers` (prom-client's AggregatorRegistry: counters and histograms summed, the
 * per-process gauges too), so one scrape sees the whole instance.
 */

/**
 * What a count on a feature's counter takes: the label value (undefined for a counter without a
 * label) and the game it happened in (contract §14; empty when the caller knows none).
 */
export type Count = (labelValue?: string, game?: string) => void
/** A gauge a feature reads from elsewhere (the database) when Prometheus scrapes: counts by label value. */
export type GaugeSource = () => Promise<Record<string, number>>

/** A feature's counter: its family, its label and values, and each game's series by label value. */
interface FeatureCounter {
  family: PlainCounter
  label: string | undefined
  /** The label values every game's series start with ('' alone without a label). */
  values: string[]
  games: Map<string, Map<string, { value: number }>>
}

/** The game's series of a counter, made with every known label value at 0 on first use. */
function seriesOf(counter: FeatureCounter, game: string): Map<string, { value: number }> {
  let series = counter.games.get(game)
  if (!series) counter.games.set(game, (series = new Map()))
  const { family, label } = counter
  for (const value of counter.values) {
    if (!series.has(value)) series.set(value, family.of(label ? { [label]: value, game } : { game }))
  }
  return series
}

/** The app's metric families behind one object: the hooks and the database report here, /metrics reads it. */
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
    help: 'Requests refused with the transient 429, by limit (player: per IP and game on the app API; admin, whose game is empty)',
    labelNames: ['limit', 'game'] as const,
    registers: [this.registry],
  })
  private readonly cacheLookups = new PlainCounter(
    this.registry,
    'outpost_cache_lookups_total',
    'In-memory cache lookups (leaderboard top pages, content), by cache and result (hit: no database read)',
  )
  /**
   * The features' counters by metric name: every one is a game's (its series carry `game`), each
   * game's series by label value ('' without a label), the game's map made with all its declared
   * values at 0 when the game is first named (`gameKnown`, or its first count).
   */
  private readonly counters = new Map<string, FeatureCounter>()
  private readonly gaugeSources = new Map<string, GaugeSource>()
  private readonly caches = new Set<string>()
  private db: Db | undefined
  private gameDbs: () => Iterable<Db> = () => []

  /**
   * Registers what the features declare, every label value at 0 from the start. `processRegistry`:
   * the process's own metrics (process.ts), appended to every answer when given.
   */
  constructor(
    features: readonly FeatureManifest[] = [],
    private readonly processRegistry?: Registry,
  ) {
    const watchedDb = () => this.db
    new Gauge({
      name: 'outpost_db_pool_connections',
      help: 'Database server pool: connections handed out (in_use), callers waiting for one (waiting), the pool size (max)',
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
    // A list of hosts (DB_HOST): which one this process writes to. Summed over a cluster's workers, the
    // value of each host is how many write to it.
    new Gauge({
      name: 'outpost_db_host',
      help: 'Database hosts of DB_HOST: 1 for the one written to now, 0 for the others (summed over workers: how many write to each)',
      labelNames: ['host'] as const,
      registers: [this.registry],
      collect() {
        const db = watchedDb()
        const state = db && databaseHosts(db)
        if (!state) return
        state.hosts.forEach((host, i) => this.set({ host }, i === state.current ? 1 : 0))
      },
    })
    // The read hosts (DB_READ_HOST): which one takes the seconds-old reads, and how far behind each is.
    new Gauge({
      name: 'outpost_db_read_host',
      help: 'Read hosts of DB_READ_HOST: 1 for the one the seconds-old reads go to now, 0 for the others (all 0: the writer takes them)',
      labelNames: ['host'] as const,
      registers: [this.registry],
      collect() {
        const db = watchedDb()
        const reads = db && readHostsBeside(db)
        if (!reads) return
        reads.states().forEach((state, i) => this.set({ host: state.host }, i === reads.current ? 1 : 0))
      },
    })
    new Gauge({
      name: 'outpost_db_read_host_lag_seconds',
      help: 'How far each read host of DB_READ_HOST was behind the writer at its last probe (NaN: not measured, down)',
      labelNames: ['host'] as const,
      registers: [this.registry],
      collect() {
        const db = watchedDb()
        const reads = db && readHostsBeside(db)
        if (!reads) return
        for (const { host, lagMs } of reads.states()) this.set({ host }, lagMs === null ? NaN : lagMs / 1000)
      },
    })
    const failovers = () => {
      const db = watchedDb()
      return (db && databaseHosts(db)?.failovers) ?? 0
    }
    let failoversAtReset = 0
    registerFamily(
      this.registry,
      'outpost_db_failovers_total',
      'Moves to another database host of DB_HOST, the one in use having stopped answering (the log names both)',
      'counter',
      () => [{ labels: {}, value: failovers() - failoversAtReset }],
      () => (failoversAtReset = failovers()),
    )
    // Read from the drivers' own counts when scraped: one integer increment per statement, nothing
    // more. Summed over every database of the games (a game over the server's pool shares its
    // count), each one's last count kept, so a game's database closed stays counted.
    const lastSent = new Map<StatementTap, number>()
    const sent = () => {
      for (const db of [watchedDb(), ...this.gameDbs()]) {
        const tap = db && statementTapOf(db)
        if (tap) lastSent.set(tap, tap.sent)
      }
      let total = 0
      for (const count of lastSent.values()) total += count
      return total
    }
    let sentAtReset = 0
    registerFamily(
      this.registry,
      'outpost_db_statements_total',
      'Database statements sent (BEGIN and COMMIT included): divided by requests, the round trips a request costs',
      'counter',
      () => [{ labels: {}, value: sent() - sentAtReset }],
      () => (sentAtReset = sent()),
    )
    // Every label value a family can take, at 0 from the start: a rate over a series that appears only
    // on its first event misses that event.
    for (const kind of ['error', 'conflict', 'query_timeout', 'pool_timeout']) this.dbErrors.inc({ kind }, 0)
    this.rateLimited.inc({ limit: 'admin', game: '' }, 0)
    for (const feature of features) {
      for (const counter of Object.values(feature.counters ?? {})) {
        const family = new PlainCounter(this.registry, counter.name, counter.help)
        const label = counter.label?.name
        const values = label ? [...counter.label!.values] : ['']
        this.counters.set(counter.name, { family, label, values, games: new Map() })
      }
      for (const gauge of Object.values(feature.gauges ?? {})) {
        const source = () => this.gaugeSources.get(gauge.name)
        new Gauge({
          name: gauge.name,
          help: gauge.help,
          labelNames: [gauge.label],
          registers: [this.registry],
          // Every worker reads the same rows: summed over the workers it would count each one N times.
          aggregator: 'first',
          async collect() {
            const read = source()
            if (!read) return
            this.reset()
            // A database that does not answer must not fail the scrape: the other families still matter then.
            const counts = await read().catch(() => null)
            if (counts) for (const [value, count] of Object.entries(counts)) this.set({ [gauge.label]: value }, count)
          },
        })
      }
      for (const cache of feature.caches ?? []) {
        this.caches.add(cache)
        this.cacheLookups.of({ cache, result: 'hit' })
        this.cacheLookups.of({ cache, result: 'miss' })
      }
    }
  }

  /** The database whose pool use is reported (set by the db plugin). */
  watchDb(db: Db): void {
    this.db = db
  }

  /** The games' databases, whose statements count with the server's (set by the games registry). */
  watchGameDbs(list: () => Iterable<Db>): void {
    this.gameDbs = list
  }

  queryFailed(kind: DbFailure): void {
    this.dbErrors.inc({ kind })
  }

  /** A 429 of the rate limit: `game` the one whose limit it was (empty for the admin limit). */
  rateLimitRejected(limit: 'player' | 'admin', game: string): void {
    this.rateLimited.inc({ limit, game })
  }

  /**
   * A game this app serves: its series of every feature counter (and its player rate limit) are there
   * at 0 from now on, so that a rate over them sees the game's first event.
   */
  gameKnown(game: string): void {
    this.rateLimited.inc({ limit: 'player', game }, 0)
    for (const counter of this.counters.values()) seriesOf(counter, game)
  }

  /** The callback a cache a feature declared reports its lookups to. */
  cacheLookup(cache: string): CacheLookup {
    if (!this.caches.has(cache)) throw new Error(`No feature declares the cache '${cache}' in its manifest`)
    const hit = this.cacheLookups.of({ cache, result: 'hit' })
    const miss = this.cacheLookups.of({ cache, result: 'miss' })
    return (isHit) => {
      if (isHit) hit.value++
      else miss.value++
    }
  }

  /**
   * The handle a feature counts on, for a counter its manifest declares; taken once, when its routes
   * register. A label value the manifest does not list gets its series on first use (a count is never
   * refused), but only the listed ones are there from the start. `values`: label values known only
   * when the feature registers (read from the other manifests), there from then on.
   */
  counter(name: string, values: readonly string[] = []): Count {
    const counter = this.counters.get(name)
    if (!counter) throw new Error(`No feature declares the counter '${name}' in its manifest`)
    const { family, label } = counter
    if (label) {
      for (const value of values) if (!counter.values.includes(value)) counter.values.push(value)
      for (const game of counter.games.keys()) seriesOf(counter, game)
    }
    // Two map lookups per count: the game's series, then the label value's.
    return (labelValue = '', game = '') => {
      const series = counter.games.get(game) ?? seriesOf(counter, game)
      let one = series.get(labelValue)
      if (!one) series.set(labelValue, (one = family.of(label ? { [label]: labelValue, game } : { game })))
      one.value++
    }
  }

  /** Where a gauge a feature declares reads its counts on each scrape. */
  readGaugeFrom(name: string, source: GaugeSource): void {
    this.gaugeSources.set(name, source)
  }

  /** One request answered: `route` is the matched pattern, or UNMATCHED_ROUTE; `game` '' when none was named. */
  requestAnswered(route: string, method: string, status: number, seconds: number, game: string): void {
    this.requests.record(route, method, status, seconds, game)
  }

  /** This process's metrics as JSON, the form a cluster primary sums (see `aggregateWorkers`). */
  async metricsJson(): Promise<MetricObjectWithValues<MetricValue<string>>[]> {
    const [own, process] = await Promise.all([
      this.registry.getMetricsAsJSON(),
      this.processRegistry?.getMetricsAsJSON() ?? [],
    ])
    return [...own, ...process] as MetricObjectWithValues<MetricValue<string>>[]
  }

  /** The Prometheus text exposition of this app and its process. */
  async text(): Promise<string> {
    const [own, process] = await Promise.all([this.registry.metrics(), this.processRegistry?.metrics() ?? ''])
    return `${own}\n${process}`
  }
}
