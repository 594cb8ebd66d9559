import { randomUUID } from 'node:crypto'
import type { ExpressionBuilder, Kysely, UpdateObject } from 'kysely'
import type { Database, Db } from '../../db/types.js'
import { affected } from '../../db/dialect.js'
import { retryOnConflict } from '../../db/transaction.js'

/**
 * Work that any of many instances may do, done by one: a row is taken with a lease by one conditional
 * UPDATE, whose affected-row count names the one instance that won it (never a read, then a write).
 * A lease that lapsed (its holder died or hung) lets the row be taken back. The e-mail and webhook
 * outboxes (`Outbox`) and the background jobs' runs (platform/jobs/runner.ts) share this one helper.
 */

type Column<T extends keyof Database> = keyof Database[T] & string
type Values<T extends keyof Database> = UpdateObject<Database, T>
/** The statements below name the caller's table and columns, so they are built untyped. */
type Where = (eb: ExpressionBuilder<any, any>) => any
const untyped = (db: Db) => db as unknown as Kysely<any>

/** Where a table keeps its lease: the moment it was taken (`since`) or the moment it lapses (`until`). */
export type LeaseColumn<C extends string> = { since: C } | { until: C }

/** The columns that hold a lease over the rows of one table, and how long a lease lasts. */
export interface LeaseTable<T extends keyof Database> {
  table: T
  /** The row's key (a unique column). */
  key: Column<T>
  /** The holder's token: a fresh id per claim, or the holder's own id. */
  token: Column<T>
  lease: LeaseColumn<Column<T>>
  leaseMs: number
}

/** Leases over one table's rows: take one, give it back, find those that lapsed. */
export class Leases<T extends keyof Database> {
  constructor(readonly spec: LeaseTable<T>) {}

  /** The lease's column (whichever moment it holds). */
  protected get leaseColumn(): string {
    return 'since' in this.spec.lease ? this.spec.lease.since : this.spec.lease.until
  }

  /** The condition "the lease lapsed at `now`" (a row with no lease is not lapsed). */
  lapsed(now: number): Where {
    const lease = this.spec.lease
    return (eb) =>
      'since' in lease ? eb(lease.since as string, '<=', now - this.spec.leaseMs) : eb(lease.until as string, '<=', now)
  }

  /** The values that give `token` a lease from `now`. */
  protected held(token: string, now: number): Record<string, unknown> {
    const lease = this.spec.lease
    const at = 'since' in lease ? now : now + this.spec.leaseMs
    return { [this.spec.token]: token, [this.leaseColumn]: at }
  }

  /** The values of a row no one holds. */
  protected free(): Record<string, unknown> {
    return { [this.spec.token]: null, [this.leaseColumn]: null }
  }

  /**
   * Takes the lease on the row `key` for `token` with one conditional UPDATE (`when`: the row's state
   * that allows it, `set`: what else changes): the token for the one caller that won, else null.
   */
  async take(
    db: Db,
    key: unknown,
    now: number,
    when: Where,
    { token = randomUUID() as string, set = {} as Values<T> } = {},
  ): Promise<string | null> {
    const taken = await retryOnConflict(() =>
      untyped(db)
        .updateTable(this.spec.table as string)
        .set({ ...(set as object), ...this.held(token, now) })
        .where(this.spec.key as string, '=', key)
        .where(when)
        .executeTakeFirst(),
    )
    return affected(taken) === 1 ? token : null
  }

  /**
   * Gives back the lease `token` holds on the row `key`, writing `set`: false when the token no longer
   * holds it (its lease lapsed and another took the row back; that one's outcome is the one kept).
   * Not retried here: the caller may be inside a transaction.
   */
  async release(db: Db, key: unknown, token: string, set: Values<T>): Promise<boolean> {
    const released = await untyped(db)
      .updateTable(this.spec.table as string)
      .set({ ...(set as object), ...this.free() })
      .where(this.spec.key as string, '=', key)
      .where(this.spec.token as string, '=', token)
      .executeTakeFirst()
    return affected(released) === 1
  }
}

/** An outbox table: due rows, their status and attempts, besides the lease. */
export interface OutboxTable<T extends keyof Database> extends LeaseTable<T> {
  status: Column<T>
  attempts: Column<T>
  /** When the row is due (again). */
  dueAt: Column<T>
  updatedAt: Column<T>
  /** Attempts a row gets, the lapsed ones included. */
  maxAttempts: number
}

/** What a claim needs of a due row: its key and the attempts it had when it was read. */
export interface Candidate {
  key: unknown
  attempts: number
}

/**
 * An outbox: rows `pending` until due, then `processing` under one instance's lease, then a final
 * status, or `pending` again after a backoff (the caller's schedule) while attempts are left.
 */
export class Outbox<T extends keyof Database> extends Leases<T> {
  constructor(override readonly spec: OutboxTable<T>) {
    super(spec)
  }

  /** Whether a row that made `attempts` attempts gets another. */
  attemptsLeft(attempts: number): boolean {
    return attempts < this.spec.maxAttempts
  }

  /**
   * Pending → processing under a lease, counting the attempt, if the row is still as it was read (due,
   * pending, the same attempts): of any number of instances exactly one gets the token.
   */
  claim(db: Db, row: Candidate, now: number): Promise<string | null> {
    const { status, attempts, dueAt, updatedAt } = this.spec as OutboxTable<any>
    return this.take(
      db,
      row.key,
      now,
      (eb) => eb.and([eb(status, '=', 'pending'), eb(attempts, '=', row.attempts), eb(dueAt, '<=', now)]),
      { set: { [status]: 'processing', [attempts]: row.attempts + 1, [updatedAt]: now } as Values<T> },
    )
  }

  /** Ends the attempt with `status` (and `set`): false when the lease lapsed and the row was taken back. */
  finish(db: Db, key: unknown, token: string, now: number, status: string, set = {} as Values<T>) {
    return this.release(db, key, token, { ...set, [this.spec.status]: status, [this.spec.updatedAt]: now })
  }

  /** Ends the attempt with another one due at `dueAt` (the caller's backoff): false as `finish`. */
  retryAt(db: Db, key: unknown, token: string, now: number, dueAt: number, set = {} as Values<T>) {
    return this.finish(db, key, token, now, 'pending', { ...set, [this.spec.dueAt]: dueAt })
  }

  /**
   * Takes back every row whose lease lapsed, in two UPDATEs: with attempts left it is due at once
   * (`retry` written too), else it ends `failed` (`fail` written too). Returns how many.
   */
  async reclaimLapsed(db: Db, now: number, write: { retry: Values<T>; fail: Values<T> }): Promise<number> {
    const { status, attempts, dueAt, updatedAt } = this.spec as OutboxTable<any>
    const reclaim = (set: Record<string, unknown>, attemptsLeft: boolean) =>
      retryOnConflict(() => {
        let q = untyped(db)
          .updateTable(this.spec.table as string)
          .set({ ...set, ...this.free(), [updatedAt]: now })
          .where(status, '=', 'processing')
          .where(this.lapsed(now))
        if (attemptsLeft) q = q.where(attempts, '<', this.spec.maxAttempts)
        return q.executeTakeFirst()
      })
    const retried = await reclaim({ [status]: 'pending', [dueAt]: now, ...(write.retry as object) }, true)
    const failed = await reclaim({ [status]: 'failed', ...(write.fail as object) }, false)
    return affected(retried) + affected(failed)
  }

  /** Up to `limit` rows whose lease lapsed, with their token, for a caller that takes them back one by one. */
  lapsedRows<C extends Column<T>>(db: Db, now: number, columns: readonly C[], limit: number) {
    return untyped(db)
      .selectFrom(this.spec.table as string)
      .select([...(columns as readonly string[]), `${this.spec.token} as token`])
      .where(this.spec.status as string, '=', 'processing')
      .where(this.lapsed(now))
      .limit(limit)
      .execute() as Promise<(Pick<Database[T], C> & { token: string })[]>
  }

  /**
   * Takes back one lapsed row the lapsed token still holds: due at once with attempts left, else
   * `failed` (`set` written too). False when another instance took it first.
   */
  reclaim(db: Db, row: Candidate & { token: string }, now: number, set = {} as Values<T>) {
    const status = this.attemptsLeft(row.attempts) ? 'pending' : 'failed'
    return this.finish(db, row.key, row.token, now, status, { ...set, [this.spec.dueAt]: now })
  }
}
