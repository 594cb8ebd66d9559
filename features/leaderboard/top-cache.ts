import { performance } from 'node:perf_hooks'
import type { ResetSchedule } from './tables.js'
import type { CacheLookup } from '../../platform/observability/metrics/index.js'

/**
 * Top pages served from memory: the most requested leaderboard read (every client's menu shows one),
 * and the one whose answer is the same for every caller. A page is kept as its serialized body.
 *
 * A page is dropped at once when this process changes what it shows (a score, an entry, a board, a
 * name, a profile), and is never kept longer than LEADERBOARD_CACHE_MS (default 1 s, 0: no cache): that
 * bounds how late a write made by another instance shows, as CONTENT_CHECK_INTERVAL_MS does for
 * remote config.
 *
 * Changes are stamped on the cache's own counter (one cache per game: the leaderboard plugin's, marked
 * through the app's event hub, which tells the game of each write). A read notes the counter before it starts and its page is stored with
 * that stamp, so a page read while a write was committing is never trusted past the write's mark. A
 * write marks its board once inside its transaction and again after the commit.
 *
 * A change names the first position it can move (a score that only improves leaves every entry above
 * its new position where it was), so a page that ends above it stays: most submits land far below the
 * top 10 that every client reads. A change that can move anything, or the total, names position 1.
 *
 * A page past LEADERBOARD_CACHE_MS is kept as the last copy (a page a change dropped is not): the
 * request that finds it starts a read and waits for it at most REFRESH_WAIT_MS, else answers from
 * that copy, so a database that has gone away does not hold the route. Concurrent requests for one
 * page share one read, unless something changed after it began.
 */
const MAX_PAGES = 512

/** A top page kept as its serialized answer, so a hit costs no serialization. */
export interface TopPage {
  json: string
  boardId: string
  reset_schedule: ResetSchedule
  /** The period key the page was read for: a page from before a reset is never served after it. */
  period: string | null
  /** The last position the page shows (offset + limit): a change from below it leaves the page as it is. */
  lastPosition: number
}

interface Stored extends TopPage {
  readAt: number
  expiresAt: number
}

/** A page from the cache and whether it is past its age. */
export interface CachedPage {
  page: TopPage
  /** Past LEADERBOARD_CACHE_MS: to be read again, and answered only when that read fails or is slow. */
  stale: boolean
}

/** A read of a page in flight, shared by the requests that arrive while it runs. */
export interface PageRead {
  json: Promise<string>
  /** `performance.now()` when the read began. */
  startedAt: number
}

/** The top pages of one game, least recently used dropped first, so a popular board is read once per interval. */
export class TopPageCache {
  /** In insertion order, refreshed on every hit: the first key is the least recently used. */
  private readonly pages = new Map<string, Stored>()
  private readonly reads = new Map<string, PageRead & { readAt: number }>()
  private changes = 0
  private everythingChangedAt = 0
  private readonly boardChanges = new Map<string, ChangeLog>()
  /** Every board's changes, for a read in flight, which does not know its board until it has read it. */
  private readonly anyBoardChanges = new ChangeLog()

  constructor(
    private readonly ttlMs: number,
    private readonly maxPages = MAX_PAGES,
    private readonly onLookup: CacheLookup = () => {},
  ) {}

  /** A request for a top page was answered from memory (`true`) or needed a database read. */
  counted(hit: boolean): void {
    this.onLookup(hit)
  }

  /**
   * What one board's pages show has changed (its entries, counts or settings), from `fromPosition`
   * down: pages that end above it are left as they are.
   */
  boardChanged(boardId: string, fromPosition = 1): void {
    const stamp = ++this.changes
    let log = this.boardChanges.get(boardId)
    if (!log) this.boardChanges.set(boardId, (log = new ChangeLog()))
    log.add(stamp, fromPosition)
    this.anyBoardChanges.add(stamp, fromPosition)
  }

  /** Something every board's pages may show has changed (a player's name or public profile). */
  everythingChanged(): void {
    this.everythingChangedAt = ++this.changes
  }

  /** The stamp a read takes before it starts: pass it to `set`. */
  begin(): number {
    return this.changes
  }

  get(key: string): CachedPage | undefined {
    const page = this.pages.get(key)
    if (!page) return undefined
    if (!this.current(page, page.readAt)) {
      this.pages.delete(key)
      return undefined
    }
    this.pages.delete(key)
    this.pages.set(key, page)
    return { page, stale: performance.now() >= page.expiresAt }
  }

  /**
   * The read of one page in flight, or a new one from `read` (given the stamp to store its page with).
   * A read is shared unless a change that reaches the page (of any board: the read does not know its
   * board yet) came after it began, as its page may predate the change.
   */
  read(key: string, lastPosition: number, read: (readAt: number) => Promise<string>): PageRead {
    const pending = this.reads.get(key)
    if (
      pending &&
      this.everythingChangedAt <= pending.readAt &&
      !this.anyBoardChanges.changedSince(pending.readAt, lastPosition)
    )
      return pending
    const readAt = this.changes
    const entry = { json: read(readAt), startedAt: performance.now(), readAt }
    this.reads.set(key, entry)
    const settled = () => {
      if (this.reads.get(key) === entry) this.reads.delete(key)
    }
    entry.json.then(settled, settled)
    return entry
  }

  set(key: string, page: TopPage, readAt: number): void {
    if (this.ttlMs === 0 || !this.current(page, readAt)) return
    this.pages.delete(key)
    this.pages.set(key, { ...page, readAt, expiresAt: performance.now() + this.ttlMs })
    if (this.pages.size > this.maxPages) this.pages.delete(this.pages.keys().next().value!)
  }

  get size(): number {
    return this.pages.size
  }

  private current(page: TopPage, readAt: number): boolean {
    if (this.everythingChangedAt > readAt) return false
    return !this.boardChanges.get(page.boardId)?.changedSince(readAt, page.lastPosition)
  }
}

/** The most changes a log keeps apart; older ones are merged, which only drops more pages. */
const MAX_LOGGED_CHANGES = 32

/**
 * Which positions changed when: enough to tell whether anything at or above a position changed after
 * a stamp. A change is forgotten once a later one reaches as high (every page it would drop, the later
 * one drops too), so the log holds changes of strictly increasing stamp and first position.
 */
export class ChangeLog {
  private readonly stamps: number[] = []
  private readonly froms: number[] = []

  add(stamp: number, fromPosition: number): void {
    while (this.froms.length && this.froms[this.froms.length - 1]! >= fromPosition) {
      this.froms.pop()
      this.stamps.pop()
    }
    this.stamps.push(stamp)
    this.froms.push(fromPosition)
    if (this.stamps.length > MAX_LOGGED_CHANGES) {
      // The two oldest as one: the later stamp with the higher reach.
      this.stamps.shift()
      this.froms.splice(0, 2, this.froms[0]!)
    }
  }

  /** Whether a change after `stamp` reached position `lastPosition` or above. */
  changedSince(stamp: number, lastPosition: number): boolean {
    // Newest first: their first positions only fall going back, so the first old enough ends the search.
    for (let i = this.stamps.length - 1; i >= 0 && this.stamps[i]! > stamp; i--)
      if (this.froms[i]! <= lastPosition) return true
    return false
  }
}
