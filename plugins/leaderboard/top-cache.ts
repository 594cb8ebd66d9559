import { performance } from 'node:perf_hooks'
import type { ResetSchedule } from '../../db/types.js'

/**
 * Top pages served from memory: the most requested leaderboard read (every client's menu shows one),
 * and the one whose answer is the same for every caller. A page is kept as its serialized body.
 *
 * A page is dropped at once when this process changes what it shows (a score, an entry, a board, a
 * name, a profile), and is never kept longer than LEADERBOARD_CACHE_MS (default 1 s, 0: no cache): that
 * bounds how late a write made by another instance shows, as CONTENT_CHECK_INTERVAL_MS does for
 * remote config.
 *
 * Changes are stamped on one process-wide counter. A read notes the counter before it starts and its
 * page is stored with that stamp, so a page read while a write was committing is never trusted past
 * the write's mark. A write marks its board once inside its transaction and again after the commit.
 */
const MAX_PAGES = 512

let changes = 0
let everythingChangedAt = 0
const boardChangedAt = new Map<string, number>()

/** What one board's pages show has changed (its entries, counts or settings). */
export function topPagesChanged(boardId: string): void {
  boardChangedAt.set(boardId, ++changes)
}

/** Something every board's pages may show has changed (a player's name or public profile). */
export function allTopPagesChanged(): void {
  everythingChangedAt = ++changes
}

export interface TopPage {
  json: string
  boardId: string
  reset_schedule: ResetSchedule
  /** The period key the page was read for: a page from before a reset is never served after it. */
  period: string | null
}

interface Stored extends TopPage {
  readAt: number
  expiresAt: number
}

export class TopPageCache {
  /** In insertion order, refreshed on every hit: the first key is the least recently used. */
  private readonly pages = new Map<string, Stored>()

  constructor(
    private readonly ttlMs: number,
    private readonly maxPages = MAX_PAGES,
  ) {}

  /** The stamp a read takes before it starts: pass it to `set`. */
  begin(): number {
    return changes
  }

  get(key: string): TopPage | undefined {
    const page = this.pages.get(key)
    if (!page) return undefined
    if (performance.now() >= page.expiresAt || !this.current(page.boardId, page.readAt)) {
      this.pages.delete(key)
      return undefined
    }
    this.pages.delete(key)
    this.pages.set(key, page)
    return page
  }

  set(key: string, page: TopPage, readAt: number): void {
    if (this.ttlMs === 0 || !this.current(page.boardId, readAt)) return
    this.pages.delete(key)
    this.pages.set(key, { ...page, readAt, expiresAt: performance.now() + this.ttlMs })
    if (this.pages.size > this.maxPages) this.pages.delete(this.pages.keys().next().value!)
  }

  get size(): number {
    return this.pages.size
  }

  private current(boardId: string, readAt: number): boolean {
    return everythingChangedAt <= readAt && (boardChangedAt.get(boardId) ?? 0) <= readAt
  }
}
