// The activity marks and score-submit counts a process collects while it serves, written in batches
// off the request path: a request only adds to a set or a counter in memory (no statement), and a
// timer writes what has gathered every FLUSH_MS and once more when the app closes.
import { sql } from 'kysely'
import type { Db } from '../../db/types.js'
import { addOnConflict, insertOrIgnore } from '../../db/dialect.js'
import { retryOnConflict } from '../../db/transaction.js'
import { dayOf } from './days.js'

/** How often gathered marks are written: what a crash can lose at most (contract §12 allows 10 s). */
export const FLUSH_MS = 5_000

/**
 * Players remembered per day by one process. Past it the day's memory is forgotten (after the marks
 * waiting are written): a player seen again that day is written again, which the primary key makes
 * harmless — one more idempotent write, never a second count. 100,000 ids hold about 12 MB.
 * It bounds the marks not yet written too, those waiting and those a flush is writing together: while
 * the database is slow or failing, a mark past it is dropped (and counted in the next flush's warning)
 * rather than held, and the player, not remembered as seen, is marked again at their next request.
 */
export const MAX_PLAYERS_PER_DAY = 100_000

/** Ids per INSERT: well inside SQLite's bound-parameter limit and MySQL's packet. */
const CHUNK = 500

/** The one log line a failed flush writes, so the recorder needs no logger type. */
export interface FlushLog {
  warn(details: object, message: string): void
}

/** Submits per day per board key, written as increments of the `submits` rollups. */
type SubmitCounts = Map<number, Map<string, number>>

/** Collects active players in memory per app and writes them in batches, so a request never waits on it. */
export class ActivityRecorder {
  /** Per day, the players already written or waiting (the day before today is kept for late answers). */
  private readonly seen = new Map<number, Set<string>>()
  private pending = new Map<number, Set<string>>()
  private pendingCount = 0
  /** Marks a flush has taken and neither written nor put back yet. */
  private inFlight = 0
  /** Marks dropped at the bound since the last warning. */
  private dropped = 0
  private submits: SubmitCounts = new Map()
  private timer: NodeJS.Timeout | undefined
  private chain: Promise<void> = Promise.resolve()

  constructor(
    private readonly db: Db,
    private readonly log: FlushLog,
    readonly recordActivity: boolean,
    private readonly flushMs = FLUSH_MS,
  ) {}

  /** The player `userId` was answered with success at `now`. No I/O. */
  mark(userId: string, now: number): void {
    if (!this.recordActivity) return
    const day = dayOf(now)
    const id = userId.toLowerCase()
    let seen = this.seen.get(day)
    if (!seen) {
      this.seen.set(day, (seen = new Set()))
      for (const old of this.seen.keys()) if (old < day - 1) this.seen.delete(old)
    }
    if (seen.has(id)) return
    if (this.pendingCount + this.inFlight >= MAX_PLAYERS_PER_DAY) {
      this.dropped++
      return
    }
    if (seen.size >= MAX_PLAYERS_PER_DAY) seen.clear()
    seen.add(id)
    let waiting = this.pending.get(day)
    if (!waiting) this.pending.set(day, (waiting = new Set()))
    if (waiting.has(id)) return
    waiting.add(id)
    if (++this.pendingCount >= MAX_PLAYERS_PER_DAY) void this.flush()
  }

  /** A score submit to `boardKey` succeeded at `now`. No I/O. */
  submitted(boardKey: string, now: number): void {
    this.addSubmits(dayOf(now), boardKey, 1)
  }

  start(): void {
    if (this.timer) return
    this.timer = setInterval(() => void this.flush(), this.flushMs)
    this.timer.unref()
  }

  /** Stops the timer and writes what is left. */
  async stop(): Promise<void> {
    clearInterval(this.timer)
    this.timer = undefined
    await this.flush()
  }

  /** Writes what has gathered; flushes never overlap. What fails to be written waits for the next one. */
  flush(): Promise<void> {
    const next = this.chain.then(() => this.write())
    this.chain = next.catch(() => undefined)
    return next
  }

  private async write(): Promise<void> {
    const pending = this.pending
    const submits = this.submits
    this.pending = new Map()
    this.inFlight = this.pendingCount
    this.pendingCount = 0
    this.submits = new Map()
    if (this.dropped > 0) {
      this.log.warn(
        { dropped: this.dropped, bound: MAX_PLAYERS_PER_DAY },
        'activity marks dropped: the marks not yet written reached their bound (the database is slow or failing)',
      )
      this.dropped = 0
    }
    for (const [day, ids] of pending) {
      const sorted = [...ids].sort()
      for (let start = 0; start < sorted.length; start += CHUNK) {
        const chunk = sorted.slice(start, start + CHUNK)
        try {
          await retryOnConflict(() => insertActivity(this.db, day, chunk))
          this.inFlight -= chunk.length
        } catch (error) {
          // Put back within the bound: marks made meanwhile were held to what this flight left free.
          this.inFlight -= sorted.length - start
          this.requeue(day, sorted.slice(start))
          this.log.warn(
            { err: error, day, players: sorted.length - start },
            'activity marks not written; retried at the next flush',
          )
          break
        }
      }
    }
    if (submits.size > 0) {
      try {
        await retryOnConflict(() => addSubmits(this.db, submits))
      } catch (error) {
        for (const [day, boards] of submits) for (const [key, n] of boards) this.addSubmits(day, key, n)
        this.log.warn({ err: error }, 'submit counts not written; retried at the next flush')
      }
    }
  }

  private addSubmits(day: number, boardKey: string, n: number) {
    let boards = this.submits.get(day)
    if (!boards) this.submits.set(day, (boards = new Map()))
    boards.set(boardKey, (boards.get(boardKey) ?? 0) + n)
  }

  private requeue(day: number, ids: string[]) {
    let waiting = this.pending.get(day)
    if (!waiting) this.pending.set(day, (waiting = new Set()))
    // Counted once each: an id both put back and marked again meanwhile is one mark waiting.
    for (const id of ids) {
      if (waiting.has(id)) continue
      waiting.add(id)
      this.pendingCount++
    }
  }
}

/**
 * One day's marks for these players, each at most once: INSERT … SELECT from `users` skips ids that
 * name no player (deleted meanwhile), and INSERT-or-ignore leaves a mark another process wrote alone.
 */
async function insertActivity(db: Db, day: number, ids: string[]): Promise<void> {
  // The day as a literal: a bound parameter in a select list has no type on PostgreSQL (it would be text).
  const insert = db
    .insertInto('player_activity')
    .columns(['day', 'user_id'])
    .expression(
      db
        .selectFrom('users')
        .select([sql<number>`${sql.lit(day)}`.as('day'), 'id'])
        .where('id', 'in', ids),
    )
  await insertOrIgnore(db, insert).execute()
}

/** Adds the counts to the `submits` rollups, per board and in total, in one statement. */
async function addSubmits(db: Db, submits: SubmitCounts): Promise<void> {
  const rows: Array<{ metric: string; dimension: string; day: number; value: number }> = []
  for (const [day, boards] of submits) {
    let total = 0
    for (const [key, n] of boards) {
      rows.push({ metric: 'submits@board', dimension: key, day, value: n })
      total += n
    }
    rows.push({ metric: 'submits', dimension: '', day, value: total })
  }
  await addOnConflict(
    db,
    'analytics_daily',
    db.insertInto('analytics_daily').values(rows),
    ['metric', 'dimension', 'day'],
    'value',
  ).execute()
}
