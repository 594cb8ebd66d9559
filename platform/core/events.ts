import fp from 'fastify-plugin'
import type { Transaction } from 'kysely'
import type { Database, Db } from '../../db/types.js'
import { nowAndAfterCommit } from '../../db/transaction.js'

/**
 * How one feature reacts to another's writes without importing it: one hub per app, which features
 * subscribe to while they register, and which services are handed (like `db`) to announce a write.
 * Per app, so two apps in one process never hear each other, and a feature's reaction exists exactly
 * when the feature is registered.
 *
 * The change notices (`publicPlayerChanged`, `boardChanged`) mark in-process caches: they run now
 * and, when given a transaction, again once it commits (never for a rolled-back one), because a read
 * that began between the first run and the commit may still have seen the old rows.
 */
export type UserDeletingListener = (trx: Transaction<Database>, userId: string) => Promise<void>

/**
 * A feature's part of a player's data export (right of access and portability): the export's fields
 * it owns, read through its own service, so its secrets stay decided where its tables are.
 */
export type UserExportPart = (db: Db, userId: string) => Promise<Record<string, unknown>>

/**
 * Something an operator hears about outside the console (a new leader, a new crash group, ...): its
 * type and what a receiver needs to know, as JSON. Raised inside the transaction of the change, so a
 * listener's rows (the webhooks' outbox) commit or roll back with it.
 */
export interface RaisedEvent {
  type: string
  data: Record<string, unknown>
}
export type RaisedEventListener = (trx: Db, event: RaisedEvent) => Promise<void>

export class EventHub {
  private readonly raisedListeners: RaisedEventListener[] = []
  private readonly userDeletingListeners: UserDeletingListener[] = []
  private readonly userExportParts: UserExportPart[] = []
  private readonly publicPlayerListeners: Array<() => void> = []
  private readonly boardListeners: Array<(boardId: string, fromPosition: number) => void> = []
  private readonly scoreListeners: Array<(boardKey: string, now: number) => void> = []

  /**
   * For what another feature keeps beside a user's rows and no ON DELETE CASCADE can update (the
   * leaderboard's count tree): run in the deleting transaction, before the user's row goes.
   */
  onUserDeleting(listener: UserDeletingListener): void {
    this.userDeletingListeners.push(listener)
  }

  /** What other players see of a player (the name, the public profile) has changed. */
  onPublicPlayerChanged(listener: () => void): void {
    this.publicPlayerListeners.push(listener)
  }

  /** What one leaderboard shows (its entries, counts or settings) has changed, from a position down. */
  onBoardChanged(listener: (boardId: string, fromPosition: number) => void): void {
    this.boardListeners.push(listener)
  }

  /** Every event raised by any feature, with the transaction of the change that raised it. */
  onRaised(listener: RaisedEventListener): void {
    this.raisedListeners.push(listener)
  }

  /**
   * Call with the change's transaction: what the listeners write commits with the change, and a
   * rolled-back change leaves nothing. (With the plain database the listeners write after the change.)
   */
  async raise(trx: Db, type: string, data: Record<string, unknown>): Promise<void> {
    for (const listener of this.raisedListeners) await listener(trx, { type, data })
  }

  /** True when some feature listens to raised events: a caller may skip the reads an event needs. */
  get raising(): boolean {
    return this.raisedListeners.length > 0
  }

  /** A score submit succeeded (analytics counts them per board and day). */
  onScoreSubmitted(listener: (boardKey: string, now: number) => void): void {
    this.scoreListeners.push(listener)
  }

  /** Call once the submit has been stored (after its transaction commits). */
  scoreSubmitted(boardKey: string, now: number): void {
    for (const listener of this.scoreListeners) listener(boardKey, now)
  }

  /** For a player's data export: the feature adds the fields it owns. */
  onUserExport(part: UserExportPart): void {
    this.userExportParts.push(part)
  }

  /** Every feature's part of one player's export, read at once and merged. */
  async userExport(db: Db, userId: string): Promise<Record<string, unknown>> {
    const parts = await Promise.all(this.userExportParts.map((part) => part(db, userId)))
    return Object.assign({}, ...parts)
  }

  async userDeleting(trx: Transaction<Database>, userId: string): Promise<void> {
    for (const listener of this.userDeletingListeners) await listener(trx, userId)
  }

  /** Call with the write's transaction (or the database, after the write). */
  publicPlayerChanged(db: Db): void {
    nowAndAfterCommit(db, () => {
      for (const listener of this.publicPlayerListeners) listener()
    })
  }

  /**
   * Call with the write's transaction (or the database, after the write). `fromPosition`: the first
   * position the change can have moved (1, the default, when it may have moved any, or the total).
   */
  boardChanged(db: Db, boardId: string, fromPosition = 1): void {
    nowAndAfterCommit(db, () => {
      for (const listener of this.boardListeners) listener(boardId, fromPosition)
    })
  }
}

/** What the users feature's export needs of the hub. */
export type UserExportEvents = Pick<EventHub, 'userExport'>
/** What a service that deletes users needs of the hub. */
export type UserDeletionEvents = Pick<EventHub, 'userDeleting'>
/** What a service that changes a player's name or public profile needs of the hub. */
export type PublicPlayerEvents = Pick<EventHub, 'publicPlayerChanged'>
/** What the leaderboard's writes need of the hub. */
export type BoardEvents = Pick<EventHub, 'boardChanged' | 'raise' | 'raising'>
/** What a service that raises events for operators needs of the hub. */
export type RaisedEvents = Pick<EventHub, 'raise' | 'raising'>

declare module 'fastify' {
  interface FastifyInstance {
    events: EventHub
  }
}

export default fp(
  async (app) => {
    app.decorate('events', new EventHub())
  },
  { name: 'events' },
)
