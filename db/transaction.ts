import { AsyncLocalStorage } from 'node:async_hooks'
import type { Transaction } from 'kysely'
import type { Database, Db } from './types.js'
import { isRetryableConflict } from './dialect.js'
import { runPreparedDirectly } from './prepared.js'
import { withinDeadline } from './pool-bounds.js'

/**
 * How long a deadlocked transaction or statement is tried again, from its first attempt, when the
 * database has not set its own bound (`setConflictBound`): a fixed number of attempts ran out under
 * load (20 writers queued on one row), and a client must never see a lock conflict as a 500. Past the
 * bound the conflict is answered as the database being unavailable (503 with Retry-After).
 */
const DEFAULT_CONFLICT_BOUND_MS = 5000
const conflictBounds = new WeakMap<Db, number>()

/** The bound on retrying lock conflicts for this database: its query bound (DB_QUERY_TIMEOUT_MS). */
export function setConflictBound(db: Db, ms: number): void {
  conflictBounds.set(db, ms)
}

/** The conflict bound set for `db`, if any. */
export function conflictBoundOf(db: Db): number | undefined {
  return conflictBounds.get(db)
}

/**
 * A transaction that is run again when the database aborted it to break a deadlock (InnoDB does
 * that under concurrent writes to neighbouring index ranges), until the database's conflict bound
 * has passed. The callback must be safe to repeat:
 * everything it did was rolled back. When `db` is already a transaction, `work` joins it (it then
 * commits, rolls back and is retried with the caller's work): an admin write runs its service inside
 * the request's transaction, which also holds its audit entry (see `runInRequestTransaction`).
 */
export async function inTransaction<T>(db: Db, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db as Transaction<Database>)
  return retryOnConflict(async () => {
    let open: Transaction<Database> | undefined
    const result = await db.transaction().execute(async (trx) => {
      const leave = await runPreparedDirectly(db, (open = trx))
      try {
        return await work(trx)
      } finally {
        leave()
      }
    })
    const steps = commitSteps.get(open!)
    if (steps) for (const step of steps) step()
    return result
  }, conflictBounds.get(db))
}

/**
 * Runs `work` in the caller's transaction when `db` is one (so it commits or rolls back with the
 * caller's other writes), otherwise in a new one retried on deadlock.
 */
export function withTransaction<T>(db: Db, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db as Transaction<Database>) : inTransaction(db, work)
}

/** Steps to run once a transaction has committed, by transaction; a rolled-back attempt's are dropped with it. */
const commitSteps = new WeakMap<Transaction<Database>, Array<() => void>>()

/**
 * Runs `step` now and, when `db` is a transaction, again once it has committed (a rolled-back
 * transaction never runs it the second time). For in-process caches of what a write changes: a
 * read that began between the first run and the commit may still have seen the old rows, and the
 * second run marks it out of date.
 */
export function nowAndAfterCommit(db: Db, step: () => void): void {
  step()
  if (!db.isTransaction) return
  const trx = db as Transaction<Database>
  const steps = commitSteps.get(trx)
  if (steps) steps.push(step)
  else commitSteps.set(trx, [step])
}

/**
 * A single statement run again when InnoDB picked it as a deadlock victim (it was rolled back
 * whole): two range UPDATEs over one index from two instances can deadlock without any transaction.
 * The statement must be safe to repeat, as a conditional UPDATE is. Tried again until `boundMs` has
 * passed since the first attempt, after a growing, jittered pause (the writers that collided must
 * not collide again in step); then the conflict is thrown, which the API answers with 503. A retry's
 * waits on the database end with the bound too (`withinDeadline`): the attempts take one bound together.
 */
export async function retryOnConflict<T>(statement: () => Promise<T>, boundMs = DEFAULT_CONFLICT_BOUND_MS): Promise<T> {
  const started = performance.now()
  for (let attempt = 1; ; attempt++) {
    try {
      // A retry has what is left of the bound, not a bound of its own (the first attempt keeps the
      // driver's bounds alone: most statements never need a retry, and pay nothing for it).
      return await (attempt === 1 ? statement() : withinDeadline(started + boundMs, statement))
    } catch (error) {
      if (!isRetryableConflict(error)) throw error
      const pause = Math.min(100, 5 * attempt) * (0.5 + Math.random())
      if (performance.now() - started + pause >= boundMs) throw error
      await new Promise((resolve) => setTimeout(resolve, pause))
    }
  }
}

/** The transaction an admin write request runs in, while its handler runs (null once it has ended). */
interface RequestScope {
  trx: Transaction<Database> | null
  /** Steps to await once the transaction has committed, before the reply leaves. */
  afterCommit: Array<() => Promise<void>>
}
const requestTransaction = new AsyncLocalStorage<RequestScope>()
/** Admin write requests between their start and their end: the storage is on only while there are any. */
let openRequestTransactions = 0

/**
 * Runs `work` (a request handler) in a new transaction that every use of the request-scoped database
 * (`requestDb`) inside it joins, retried whole on deadlock. Work started inside it that outlives it
 * (a background task) falls back to the plain database once the transaction has ended.
 *
 * On Node 20 an AsyncLocalStorage that has run once installs promise hooks for the whole process:
 * every await of every request then pays for them (300,000 awaits took 17 ms before the first run and
 * 52 ms after it; the bench seeds through admin writes, so every request after paid). The storage
 * is therefore switched off again when the last admin write has ended, so app requests pay nothing
 * unless one is running at that moment. Switching it off forgets the scopes of work still alive,
 * which then sees the plain database: what it would see anyway, since each scope's `trx` is null by then.
 */
export async function runInRequestTransaction<T>(db: Db, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  openRequestTransactions++
  try {
    let scope: RequestScope | undefined
    const result = await inTransaction(db, async (trx) => {
      const attempt: RequestScope = (scope = { trx, afterCommit: [] })
      try {
        return await requestTransaction.run(attempt, () => work(trx))
      } finally {
        attempt.trx = null
      }
    })
    for (const step of scope?.afterCommit ?? []) await step()
    return result
  } finally {
    if (--openRequestTransactions === 0) requestTransaction.disable()
  }
}

/** `db`, or the transaction of the admin write request this code runs for. */
export function requestDb(db: Db): Db {
  return requestTransaction.getStore()?.trx ?? db
}

/**
 * Runs `step` once the request transaction this code runs in has committed (before the reply
 * leaves); false, and nothing done, when no request transaction is open. `step` must not throw.
 */
export function afterRequestCommit(step: () => Promise<void>): boolean {
  const scope = requestTransaction.getStore()
  if (!scope?.trx) return false
  scope.afterCommit.push(step)
  return true
}
