import { performance } from 'node:perf_hooks'
import type { Db } from '../../db/types.js'
import { readChangeCounter, type ChangeCounter } from '../../db/change-counters.js'
import { afterRequestCommit } from '../../db/transaction.js'
import type { Clock } from '../core/clock.js'
import type { CacheLookup } from '../observability/metrics/index.js'

/**
 * The in-process copy behind the hottest read paths (remote config, localization, news): every
 * client polls them at start, so a request must not cost a database round trip when nothing changed.
 *
 * Each feature has a change counter (db/change-counters.ts), bumped in the same transaction as every
 * admin write. An instance trusts its copy for at most CONTENT_CHECK_INTERVAL_MS (by the app clock),
 * then reads the counter (one primary-key lookup) and reloads only when the counter moved. So a write
 * on another instance shows within that bound; a write on this instance calls `invalidate()` and
 * shows on the next request.
 */
export const CONTENT_CHECK_INTERVAL_MS = 1000

/**
 * How long a request that holds a copy waits for the refresh it started (a counter read, a reload if
 * it moved): a healthy database answers well within it, and the request then shows the change. A
 * refresh that fails, or is still running past it, leaves the request answering from the copy it
 * holds; the refresh carries on in the background, and while it runs no other request waits on it.
 * So a database that has gone away costs a memory-served route at most this much once per refresh,
 * never the database's own timeout.
 */
export const REFRESH_WAIT_MS = 100

/**
 * The refresh's answer if it comes within REFRESH_WAIT_MS of the refresh's start (`startedAt`, from
 * `performance.now()`), else the copy in hand. A failed refresh also gives the copy: the request
 * asked for content, and the last copy is content; the failure is the refresh's to report.
 */
export function refreshedOrLast<T>(refresh: Promise<T>, last: T, startedAt: number): Promise<T> {
  const wait = startedAt + REFRESH_WAIT_MS - performance.now()
  return new Promise<T>((resolve) => {
    if (wait <= 0) {
      // The refresh is still running, and this request does not wait for it: its failure is not news.
      refresh.catch(() => {})
      return resolve(last)
    }
    const timer = setTimeout(() => resolve(last), wait)
    refresh.then(
      (value) => {
        clearTimeout(timer)
        resolve(value)
      },
      () => {
        clearTimeout(timer)
        resolve(last)
      },
    )
  })
}

/** The features whose content is cached per game and whose change counter tells other instances to reload. */
export type ContentFeature = Extract<ChangeCounter, 'remote-config' | 'localization' | 'news'>

/** Builds a feature's in-memory view from the database; `now` is the app clock at load time. */
export type ContentLoader<T> = (db: Db, now: number) => Promise<T>

interface Snapshot<T> {
  version: number
  data: T
}

/** A feature's content of one game held in memory: reads cost no query, a change elsewhere is seen at the next check. */
export class ContentCache<T> {
  private snapshot: Snapshot<T> | undefined
  private checkedAt = Number.NEGATIVE_INFINITY
  /** Bumped by every local write: a refresh begun before it may have read the old rows. */
  private generation = 0
  private pending: Promise<Snapshot<T>> | undefined
  private pendingStartedAt = 0
  private pendingGeneration = -1
  private started = 0
  private installed = 0

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    readonly feature: ContentFeature,
    private readonly load: ContentLoader<T>,
    options: { intervalMs?: number; onLookup?: CacheLookup } = {},
  ) {
    this.intervalMs = options.intervalMs ?? CONTENT_CHECK_INTERVAL_MS
    this.onLookup = options.onLookup ?? (() => {})
  }

  private readonly intervalMs: number
  /** Told of every `get`: a hit answered from memory without looking at the database. */
  private readonly onLookup: CacheLookup

  /**
   * The current view: from memory while fresh, else after one counter read (and a reload if it
   * moved), waited for at most REFRESH_WAIT_MS when a copy is in hand. Only a request with no copy
   * at all (the first after a start) waits for the database, and hears of its failure.
   */
  async get(): Promise<T> {
    const now = this.clock.now()
    // A clock that went backwards (a test, an NTP step) counts as stale rather than fresh forever.
    if (this.snapshot && now >= this.checkedAt && now - this.checkedAt < this.intervalMs) {
      this.onLookup(true)
      return this.snapshot.data
    }
    this.onLookup(false)
    // Concurrent requests share one refresh, unless a local write happened after it began.
    if (!this.pending || this.pendingGeneration !== this.generation) {
      this.pendingGeneration = this.generation
      const refresh = this.refresh(now, this.generation).finally(() => {
        if (this.pending === refresh) this.pending = undefined
      })
      // Readers holding a copy may all have given up on it: its failure is expected, not unhandled.
      refresh.catch(() => {})
      this.pending = refresh
      this.pendingStartedAt = performance.now()
    }
    if (!this.snapshot) return (await this.pending).data
    return refreshedOrLast(
      this.pending.then((snapshot) => snapshot.data),
      this.snapshot.data,
      this.pendingStartedAt,
    )
  }

  /** A write on this instance has committed: the next request re-reads the counter. */
  invalidate(): void {
    this.generation++
    this.checkedAt = Number.NEGATIVE_INFINITY
  }

  /**
   * Awaits an admin write, then invalidates whatever its outcome (even a failed attempt may have
   * committed: a lost connection after COMMIT). After a write that succeeded, the copy is refreshed
   * before the admin hears back, so the operator's next read, and every player's, shows the write
   * without waiting on a refresh. A refresh that fails here is left to the next read: the write's own
   * outcome is what the operator asked about. (After a failed write the database is likely away: no
   * second wait for it.)
   */
  async afterWrite<R>(write: Promise<R>): Promise<R> {
    let result: R
    try {
      result = await write
    } finally {
      this.invalidate()
    }
    const refresh = async () => {
      this.invalidate()
      await this.refresh(this.clock.now(), this.generation).catch(() => {})
    }
    // Inside an admin request's transaction (audit.ts) the write is not committed yet, and on SQLite a
    // refresh through the plain database would wait for the connection that transaction holds: refresh
    // once it has committed instead, still before the admin hears back.
    if (afterRequestCommit(refresh)) return result
    await refresh()
    return result
  }

  private async refresh(now: number, generation: number): Promise<Snapshot<T>> {
    const sequence = ++this.started
    // The counter is read before the rows: a write landing in between leaves rows newer than the
    // counter, which costs one extra reload later, never a stale copy kept as current.
    const version = await readChangeCounter(this.db, this.feature)
    let snapshot = this.snapshot
    if (!snapshot || snapshot.version !== version) snapshot = { version, data: await this.load(this.db, now) }
    // Refreshes can overlap (a local write starts a new one): the one begun last wins.
    if (sequence > this.installed) {
      this.installed = sequence
      this.snapshot = snapshot
      if (generation === this.generation) this.checkedAt = now
    }
    return snapshot
  }
}
