import { performance } from 'node:perf_hooks'
import type { Db } from '../../db/types.js'
import { bumpChangeCounter, readChangeCounter } from '../../db/change-counters.js'
import { prepared } from '../../db/prepared.js'
import { nowAndAfterCommit } from '../../db/transaction.js'

/**
 * The banned players, held in memory by each process (contract §1.2, revision 4), so a user-scoped
 * request in compat mode need not read the ban from the database. A ban or an unban takes effect at
 * once in the process that made it (`changed`) and within a second everywhere else:
 *
 * - every write to `users.banned_at` (ban, unban, deleting a player) bumps the `banned-players`
 *   change counter (db/change-counters.ts) in the same transaction (`changed`);
 * - each process reads the counter every BAN_POLL_MS (one primary-key read) and reloads the banned ids
 *   only when it moved. The counter is read before the ids: a ban committing in between is in the ids
 *   already and moves the counter past the one read, so it costs one more reload, never a missed ban.
 *
 * Until the first load has succeeded `ready` is false, and the caller reads the ban from the
 * database as before, so no request passes as unbanned on an empty set.
 *
 * A game's set may rest (`idleMs`): after that long without a `lookup` it stops polling and forgets
 * the set, so a server with many games polls only those being played; the next lookup answers
 * "unknown" (the caller reads the database) and starts the poll again. `default`'s never rests.
 */
export const BAN_POLL_MS = 250

/** How long a game's set is kept polled after its last lookup (contract §14's other games). */
export const BAN_IDLE_MS = 5_000

/** Errors of the poll are logged once when they start and then at most once a minute. */
const ERROR_LOG_INTERVAL_MS = 60_000

/** The two log lines the ban set writes, so it needs no Fastify logger type. */
export interface BanLog {
  warn(details: object, message: string): void
  info(message: string): void
}

// Shaped like the users feature's own counts to read the narrow users_kind_idx (is_anonymous, banned_at).
const readBannedIds = prepared((db, _p: Record<string, never>) =>
  db.selectFrom('users').select('id').where('is_anonymous', 'in', [0, 1]).where('banned_at', 'is not', null),
)

/** The banned players of one game: the session check asks it on every request instead of the database. */
export class BannedPlayers {
  private banned = new Set<string>()
  private loaded = false
  /** The counter the set was loaded at; -1 before the first load. */
  private version = -1
  /** Set by a local change: the next poll reloads whatever the counter says (a rolled-back change). */
  private stale = false
  /** Counts local changes: a load that began before one may have read the old rows and is dropped. */
  private edits = 0
  private timer: NodeJS.Timeout | undefined
  private polling: Promise<void> | undefined
  private starting: Promise<void> | undefined
  private stopped = false
  private failingSince: number | undefined
  private lastErrorLog = Number.NEGATIVE_INFINITY
  private lookedUpAt = performance.now()

  constructor(
    private readonly db: Db,
    private readonly log: BanLog,
    private readonly pollMs = BAN_POLL_MS,
    /** Without a lookup for this long the set rests (undefined: never). */
    private readonly idleMs?: number,
  ) {}

  /** True once the set has been loaded: before that it answers nothing. */
  get ready(): boolean {
    return this.loaded
  }

  /** Whether the player is banned, as of the last load and this process's own changes since. */
  isBanned(userId: string): boolean {
    return this.banned.has(userId)
  }

  /**
   * A request's question: whether the player is banned, or undefined when the set is not loaded (the
   * caller reads the database). Keeps the set polled; wakes a resting one for the next requests.
   */
  lookup(userId: string): boolean | undefined {
    this.lookedUpAt = performance.now()
    if (!this.starting && !this.stopped) void this.start()
    return this.loaded ? this.banned.has(userId) : undefined
  }

  /**
   * A write in `db` (a transaction, or one statement) has banned, unbanned or deleted the player:
   * bumps the counter in it and applies the change here now and again once it has committed.
   */
  async changed(db: Db, userId: string, banned: boolean): Promise<void> {
    await bumpChangeCounter(db, 'banned-players')
    nowAndAfterCommit(db, () => {
      if (banned) this.banned.add(userId)
      else this.banned.delete(userId)
      this.edits++
      this.stale = true
    })
  }

  /** The first load (the caller awaits it), then the poll on a timer that keeps no process alive; once. */
  start(): Promise<void> {
    return (this.starting ??= this.poll().then(() => this.schedule()))
  }

  /** Stops the poll and waits for one in flight, so the database can close after it. */
  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    await this.polling
  }

  private schedule(): void {
    if (this.stopped) return
    this.timer = setTimeout(() => {
      if (this.idleMs !== undefined && performance.now() - this.lookedUpAt >= this.idleMs) return this.rest()
      void this.poll().finally(() => this.schedule())
    }, this.pollMs)
    this.timer.unref()
  }

  /** No poll until the next lookup, and no answers from a set no longer kept current. */
  private rest(): void {
    this.loaded = false
    this.banned = new Set()
    this.version = -1
    this.starting = undefined
  }

  private poll(): Promise<void> {
    this.polling = this.refresh().then(
      () => this.recovered(),
      (error) => this.failed(error),
    )
    return this.polling
  }

  private async refresh(): Promise<void> {
    const version = await readChangeCounter(this.db, 'banned-players')
    if (this.loaded && !this.stale && version === this.version) return
    const edits = this.edits
    this.stale = false
    const rows = await readBannedIds.execute(this.db, {})
    if (edits !== this.edits) {
      // A local change landed while the ids were read: keep the set that has it, read again next time.
      this.stale = true
      return
    }
    this.banned = new Set(rows.rows.map((r) => r.id))
    this.version = version
    this.loaded = true
  }

  private recovered(): void {
    if (this.failingSince === undefined) return
    this.failingSince = undefined
    this.log.info('the banned players are read from the database again')
  }

  private failed(error: unknown): void {
    const now = Date.now()
    this.failingSince ??= now
    if (now - this.lastErrorLog < ERROR_LOG_INTERVAL_MS) return
    this.lastErrorLog = now
    this.log.warn(
      { err: error, failingForMs: now - this.failingSince },
      this.loaded
        ? 'Reading the banned players failed: bans made on other instances since then are not seen here until the database answers'
        : 'Reading the banned players failed: user-scoped requests read the ban from the database until it answers',
    )
  }
}
