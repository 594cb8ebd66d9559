import fp from 'fastify-plugin'
import type { Transaction } from 'kysely'
import type { Database, Db } from '../../db/types.js'
import { gameIdOf } from '../../db/game-schema.js'
import { nowAndAfterCommit } from '../../db/transaction.js'

/**
 * How one feature reacts to another's writes without importing it: one hub per app, which features
 * subscribe to while they register, and which services are handed (like `db`) to announce a write.
 * Per app, so two apps in one process never hear each other, and a feature's reaction exists exactly
 * when the feature is registered. The hub names no feature: each feature adds the notices it sends
 * and the events it raises to the three maps below (declaration merging, in its schemas.ts).
 */

/**
 * Notices that mark what a write changed (an in-process cache, a count), by name: the arguments its
 * listeners take after the game the write was in (what a per-game cache needs to know which copy to
 * mark). They run now and, when sent with a transaction, again once it commits (never for a
 * rolled-back one), because a read that began between the first run and the commit may still have
 * seen the old rows.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface Notices {}

/**
 * Notices whose listeners write in the sender's transaction, in order, before the sender goes on
 * (what no ON DELETE CASCADE can update), by name: the arguments after the transaction.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface TransactionNotices {}

/**
 * Something an operator hears about outside the console (a new leader, a new crash group, ...), by
 * type: its payload, the JSON a receiver gets as `data`. The raising feature declares the type, its
 * title and its payload's schema in its manifest (`events`) too.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface RaisedEvents {}

/**
 * A raised event as its listeners get it: raised inside the transaction of the change. Its payload
 * is read on demand (once, whoever asks first): a listener with no use for it (no webhook subscribes
 * to the type) costs the raiser none of the reads the payload needs.
 */
export interface RaisedEvent {
  type: string
  data: () => Promise<Record<string, unknown>>
}
/** A listener to every raised event, awaited in the change's transaction: its writes commit or roll back with it. */
export type RaisedEventListener = (trx: Db, event: RaisedEvent) => Promise<void>

/** A notice's arguments: the tuple its declaration gives. */
type Args<T> = T extends unknown[] ? T : never
type NoticeListener<N extends keyof Notices> = (gameId: string, ...args: Args<Notices[N]>) => void
type TransactionListener<N extends keyof TransactionNotices> = (
  trx: Transaction<Database>,
  ...args: Args<TransactionNotices[N]>
) => Promise<void>

/** The app's one hub (`app.events`): features listen on it as they register, services announce writes through it. */
export class EventHub {
  private readonly raisedListeners: RaisedEventListener[] = []
  private readonly noticeListeners = new Map<string, Array<(...args: unknown[]) => void>>()
  private readonly transactionListeners = new Map<string, Array<(...args: unknown[]) => Promise<void>>>()

  /**
   * Listens to a notice another feature sends (its listeners run in the order they were added): the
   * listener gets the id of the game whose database the write was in, then the notice's arguments.
   */
  on<N extends keyof Notices>(name: N, listener: NoticeListener<N>): void {
    listen(this.noticeListeners, name, listener as (...args: unknown[]) => void)
  }

  /** Listens to a notice sent in the sender's transaction: `listener` writes in it, awaited. */
  onInTransaction<N extends keyof TransactionNotices>(name: N, listener: TransactionListener<N>): void {
    listen(this.transactionListeners, name, listener as (...args: unknown[]) => Promise<void>)
  }

  /** Call with the write's transaction (or the database, after the write): its game is the listeners' first argument. */
  notify<N extends keyof Notices>(db: Db, name: N, ...args: Args<Notices[N]>): void {
    const listeners = this.noticeListeners.get(name)
    if (!listeners) return
    const gameId = gameIdOf(db)
    nowAndAfterCommit(db, () => {
      for (const listener of listeners) listener(gameId, ...args)
    })
  }

  /** Call inside the write's transaction: each listener writes in it, one after the other. */
  async notifyInTransaction<N extends keyof TransactionNotices>(
    trx: Transaction<Database>,
    name: N,
    ...args: Args<TransactionNotices[N]>
  ): Promise<void> {
    for (const listener of this.transactionListeners.get(name) ?? []) await listener(trx, ...args)
  }

  /** Every event raised by any feature, with the transaction of the change that raised it. */
  onRaised(listener: RaisedEventListener): void {
    this.raisedListeners.push(listener)
  }

  /**
   * Call with the change's transaction: what the listeners write commits with the change, and a
   * rolled-back change leaves nothing. (With the plain database the listeners write after the change.)
   * `data` may be a function that reads the payload in `trx`, called only if a listener needs it.
   */
  async raise<T extends keyof RaisedEvents>(
    trx: Db,
    type: T,
    data: RaisedEvents[T] | (() => Promise<RaisedEvents[T]>),
  ): Promise<void> {
    let payload: Promise<Record<string, unknown>> | undefined
    const read = () =>
      (payload ??= (typeof data === 'function' ? data() : Promise.resolve(data)) as Promise<Record<string, unknown>>)
    for (const listener of this.raisedListeners) await listener(trx, { type, data: read })
  }

  /** True when some feature listens to raised events: a caller may skip the reads an event needs. */
  get raising(): boolean {
    return this.raisedListeners.length > 0
  }
}

function listen<L>(listeners: Map<string, L[]>, name: string, listener: L): void {
  const list = listeners.get(name)
  if (list) list.push(listener)
  else listeners.set(name, [listener])
}

/** What a service that announces its writes (notices, raised events) needs of the hub. */
export type EventSender = Pick<EventHub, 'notify' | 'notifyInTransaction' | 'raise' | 'raising'>

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
