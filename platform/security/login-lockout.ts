import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { ExpressionBuilder } from 'kysely'
import type { Database, Db } from '../../db/types.js'
import { inTransaction } from '../../db/transaction.js'
import { affected, insertOrTouch } from '../../db/dialect.js'
import { deleteInBatches } from '../../db/jobs.js'
import { AppError } from '../core/errors.js'
import { hashToken } from './secrets.js'

/**
 * The sign-in lockout shared by the players' e-mail sign-in and the operators' console sign-in
 * (tables `login_failures` and `login_locks`, owned here): failures are rows counted in SQL over a
 * sliding window, and a key past its limit gets a lock row, so the limit holds across workers and
 * instances. Each attempt takes a slot (a row in flight) before the slow password check, and only as
 * many run at once as failures are still allowed, so parallel guesses cannot all reach it; only the
 * attempts that fail count toward the lock.
 */

/** How many failures lock a key and for how long: players and operators each pass their own. */
export interface LockoutPolicy {
  maxFailures: number
  /** At most SIGN_IN_LOCKOUT's: the sweep of expired rows deletes every failure older than that. */
  windowMs: number
}

/** 10 failures within 15 minutes lock a key for 15 minutes (contract §3 and §10). */
export const SIGN_IN_LOCKOUT: LockoutPolicy = { maxFailures: 10, windowMs: 15 * 60_000 }

/**
 * The key of a lockout other than the e-mail one, e.g. an operator's name. The scope is in capitals,
 * which no e-mail key (lower-cased) contains: no address typed at the player sign-in can reach an
 * operator's count, nor the other way round.
 */
export const scopedLockoutKey = (scope: Uppercase<string>, subject: string) => hashToken(`${scope}:${subject}`)

/** Refuses sign-in for the key until `until`; an earlier lock end never shortens a later one. */
export async function lockKey(db: Db, keyHash: string, until: number): Promise<void> {
  await db
    .updateTable('login_locks')
    .set({ locked_until: until })
    .where('key_hash', '=', keyHash)
    .where('locked_until', '<', until)
    .execute()
}

/**
 * A key's attempts as counted in its window: `failures` are failed checks (with the attempts that
 * stayed in flight past IN_FLIGHT_MS: an instance that stopped mid-check never settled them),
 * `inFlight` the checks running now.
 */
interface Tally {
  failures: number
  inFlight: number
}

/**
 * How long an attempt may stay in flight: a check lasts at most the wait for a hash slot (its line
 * is bounded, passwords.ts) and a quarter second. Past this its instance is taken to have stopped,
 * and the attempt counts as a failure until the window forgets it.
 */
export const IN_FLIGHT_MS = 60_000
/**
 * How long an attempt waits for a slot while the key's other attempts are checked, at most: as long
 * as those may stay in flight (on a server so busy that its line of hashes takes that long). Then it
 * is refused with 503 and Retry-After, as when the line of hashes is full.
 */
export const SLOT_WAIT_MS = IN_FLIGHT_MS

/** The window's failures of a key as one row: `n` every attempt counted, `inFlight` those running now. */
function tallyOf(db: Db, keyHash: string, now: number, policy: LockoutPolicy) {
  const running = (eb: ExpressionBuilder<Database, 'login_failures'>) =>
    eb.and([eb('in_flight', '=', 1), eb('failed_at', '>', now - IN_FLIGHT_MS)])
  const window = db
    .selectFrom('login_failures')
    .where('key_hash', '=', keyHash)
    .where('failed_at', '>', now - policy.windowMs)
  return {
    n: window.select((eb) => eb.fn.countAll<number | string>().as('n')),
    inFlight: window.select((eb) =>
      eb.fn.sum<number | string | null>(eb.case().when(running(eb)).then(1).else(0).end()).as('inFlight'),
    ),
  }
}

const toTally = (row: { n: number | string | null; inFlight: number | string | null }): Tally => {
  const inFlight = Number(row.inFlight ?? 0)
  return { failures: Number(row.n ?? 0) - inFlight, inFlight }
}

async function tally(db: Db, keyHash: string, now: number, policy: LockoutPolicy): Promise<Tally> {
  const { n, inFlight } = tallyOf(db, keyHash, now, policy)
  return toTally(await db.selectNoFrom([n.as('n'), inFlight.as('inFlight')]).executeTakeFirstOrThrow())
}

/**
 * A locked key (answer when the lock ends); a key whose free slots are all taken by attempts in
 * flight (`busy`: try again once one is settled); or the attempt taken (its row's id).
 */
export type Attempt = { lockedUntil: number } | { busy: true } | { id: string }

/**
 * Takes one of the key's attempts in one short transaction: the key's lock row is created or
 * written first (its `lock_version` moved on: a write, which a Galera cluster certifies, where a lock
 * alone would hold on one node only), so the attempts on one key queue there (on any instance) and
 * the tally is exact. A locked key, or one with the limit of failures reached (it is locked now), answers when
 * its lock ends. Otherwise a slot is free while the failures and the attempts in flight together
 * stay under the limit: however the checks in flight end, the limit is never passed. The attempt is
 * then written down in flight (or, with `inFlight: false`, at once as a failure: a slot of a plain cap).
 */
export async function reserveAttempt(
  db: Db,
  keyHash: string,
  now: number,
  policy: LockoutPolicy = SIGN_IN_LOCKOUT,
  { inFlight = true }: { inFlight?: boolean } = {},
): Promise<Attempt> {
  return inTransaction(db, async (trx): Promise<Attempt> => {
    await insertOrTouch(
      trx,
      'login_locks',
      trx.insertInto('login_locks').values({ key_hash: keyHash, locked_until: 0, lock_version: 0 }),
      ['key_hash'],
      'lock_version',
    ).execute()
    // The lock row and the tally in one statement, read while this transaction holds the lock row.
    // Only the window's rows count; older ones are left to the sweep job (authentication/sweeps.ts):
    // a DELETE of them here took gap locks on the key's index that neighbouring keys' sign-ins deadlocked on.
    const { n, inFlight: running } = tallyOf(trx, keyHash, now, policy)
    const row = await trx
      .selectFrom('login_locks')
      .select(['locked_until', n.as('n'), running.as('inFlight')])
      .where('key_hash', '=', keyHash)
      .executeTakeFirstOrThrow()
    const lockedUntil = Number(row.locked_until)
    if (lockedUntil > now) return { lockedUntil }
    const counted = toTally(row)
    if (counted.failures >= policy.maxFailures) {
      await lockKey(trx, keyHash, now + policy.windowMs)
      return { lockedUntil: now + policy.windowMs }
    }
    if (counted.failures + counted.inFlight >= policy.maxFailures) return { busy: true }
    const id = randomUUID()
    await trx
      .insertInto('login_failures')
      .values({ id, key_hash: keyHash, failed_at: now, in_flight: inFlight ? 1 : 0 })
      .execute()
    return { id }
  })
}

/**
 * Takes an attempt, waiting while the key is busy (see `reserveAttempt`): pauses that grow from
 * about 5 to 50 ms between tries, for SLOT_WAIT_MS at most.
 */
async function takeAttempt(db: Db, keyHash: string, now: number, policy: LockoutPolicy) {
  const giveUpAt = performance.now() + SLOT_WAIT_MS
  for (let pause = 5; ; pause = Math.min(50, pause * 2)) {
    const attempt = await reserveAttempt(db, keyHash, now, policy)
    if (!('busy' in attempt)) return attempt
    if (performance.now() + pause > giveUpAt) {
      throw new AppError(
        503,
        'SERVICE_UNAVAILABLE',
        'Too many sign-ins for this account at once; try again shortly',
        {},
        { 'retry-after': '1' },
      )
    }
    await sleep(pause * (0.5 + Math.random()))
  }
}

/** A locked key, or what the check accepted (null: the check failed). */
export type GuardedOutcome<T> = { lockedUntil: number } | { accepted: T | null }

/**
 * One sign-in attempt under the key's lockout: a slot is taken first (waiting while the key's other
 * attempts are checked), then `check` (the slow password check; null when it fails) runs only if
 * the key is not locked. Only a failed check counts toward the lock (the limit-th locks the key); a
 * passed one forgives the key's failures; a check that throws (the server was too busy to hash)
 * was no attempt and is taken back.
 */
export async function guardedAttempt<T>(
  db: Db,
  keyHash: string,
  now: number,
  check: () => Promise<T | null>,
  policy: LockoutPolicy = SIGN_IN_LOCKOUT,
): Promise<GuardedOutcome<T>> {
  const attempt = await takeAttempt(db, keyHash, now, policy)
  if ('lockedUntil' in attempt) return attempt
  let accepted: T | null
  try {
    accepted = await check()
  } catch (error) {
    await db.deleteFrom('login_failures').where('id', '=', attempt.id).execute()
    throw error
  }
  if (accepted === null) {
    await db.updateTable('login_failures').set({ in_flight: 0 }).where('id', '=', attempt.id).execute()
    const { failures } = await tally(db, keyHash, now, policy)
    if (failures >= policy.maxFailures) await lockKey(db, keyHash, now + policy.windowMs)
    return { accepted }
  }
  // The failures are forgiven; the other attempts still in flight are not: each counts if it fails.
  await db
    .deleteFrom('login_failures')
    .where('key_hash', '=', keyHash)
    .where((eb) =>
      eb.or([eb('id', '=', attempt.id), eb('in_flight', '=', 0), eb('failed_at', '<=', now - IN_FLIGHT_MS)]),
    )
    .execute()
  return { accepted }
}

/** Lifts a key's lockout (a password reset by mail proves the address). */
export async function liftLockout(db: Db, keyHash: string): Promise<void> {
  await db.deleteFrom('login_failures').where('key_hash', '=', keyHash).execute()
  await db.deleteFrom('login_locks').where('key_hash', '=', keyHash).execute()
}

/**
 * Deletes the lockout's rows no request reads any more: failures older than SIGN_IN_LOCKOUT's window
 * (every policy's is at most that) and locks that have ended, in batches. The players' sign-in sweep
 * runs it (features/authentication/sweeps.ts), out of the request path.
 */
export async function sweepLockoutRows(db: Db, now: number): Promise<{ failures: number; locks: number }> {
  const failuresBefore = now - SIGN_IN_LOCKOUT.windowMs
  const failures = await deleteInBatches(
    async (limit) => {
      const rows = await db
        .selectFrom('login_failures')
        .select('id')
        .where('failed_at', '<=', failuresBefore)
        .limit(limit)
        .execute()
      return rows.map((r) => r.id)
    },
    async (ids) =>
      affected(
        await db
          .deleteFrom('login_failures')
          .where('id', 'in', ids)
          .where('failed_at', '<=', failuresBefore)
          .executeTakeFirst(),
      ),
  )
  const locks = await deleteInBatches(
    async (limit) => {
      const rows = await db
        .selectFrom('login_locks')
        .select('key_hash')
        .where('locked_until', '<=', now)
        .limit(limit)
        .execute()
      return rows.map((r) => r.key_hash)
    },
    async (keys) =>
      affected(
        await db
          .deleteFrom('login_locks')
          .where('key_hash', 'in', keys)
          .where('locked_until', '<=', now)
          .executeTakeFirst(),
      ),
  )
  return { failures, locks }
}
