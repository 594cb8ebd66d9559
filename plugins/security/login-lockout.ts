import { randomUUID } from 'node:crypto'
import type { Db } from '../../db/types.js'
import { inTransaction } from '../../db/transaction.js'
import { insertOrLock } from '../../db/dialect.js'
import { hashToken } from './secrets.js'

/**
 * The sign-in lockout shared by the players' e-mail sign-in and the operators' console sign-in
 * (tables `login_failures` and `login_locks`, owned here): failures are rows counted in SQL over a
 * sliding window, and a key past its limit gets a lock row, so the limit holds across workers and
 * instances. Each attempt is reserved before the slow password check, so parallel guesses cannot
 * all reach it.
 */

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

/** A locked key (answer when the lock ends), or the attempt taken: its failure row and its number. */
export type Attempt = { lockedUntil: number } | { id: string; count: number }

/**
 * Takes one of the key's attempts in one short transaction: the key's lock row is created or
 * write-locked first, so the attempts on one key queue there (on any instance) and the count of
 * failures in the window is exact. A locked key, or one with the limit already reached (it is
 * locked now), answers when its lock ends; otherwise the attempt is recorded as a failure up front,
 * which a passed check takes back.
 */
export async function reserveAttempt(
  db: Db,
  keyHash: string,
  now: number,
  policy: LockoutPolicy = SIGN_IN_LOCKOUT,
): Promise<Attempt> {
  const since = now - policy.windowMs
  return inTransaction(db, async (trx): Promise<Attempt> => {
    await insertOrLock(
      trx,
      trx.insertInto('login_locks').values({ key_hash: keyHash, locked_until: 0 }),
      ['key_hash'],
      'locked_until',
    ).execute()
    const { locked_until: lockedUntil } = await trx
      .selectFrom('login_locks')
      .select('locked_until')
      .where('key_hash', '=', keyHash)
      .executeTakeFirstOrThrow()
    if (lockedUntil > now) return { lockedUntil }
    // Only the window's failures count; older ones are left to the sweep job (authentication/sweeps.ts):
    // a DELETE of them here took gap locks on the key's index that neighbouring keys' sign-ins deadlocked on.
    const counted = await trx
      .selectFrom('login_failures')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('key_hash', '=', keyHash)
      .where('failed_at', '>', since)
      .executeTakeFirstOrThrow()
    if (Number(counted.n) >= policy.maxFailures) {
      await lockKey(trx, keyHash, now + policy.windowMs)
      return { lockedUntil: now + policy.windowMs }
    }
    const id = randomUUID()
    await trx.insertInto('login_failures').values({ id, key_hash: keyHash, failed_at: now }).execute()
    return { id, count: Number(counted.n) + 1 }
  })
}

/** A locked key, or what the check accepted (null: the check failed). */
export type GuardedOutcome<T> = { lockedUntil: number } | { accepted: T | null }

/**
 * One sign-in attempt under the key's lockout: reserved first, then `check` (the slow password
 * check; null when it fails) runs only if the key is not locked. A failed check stays counted (the
 * limit-th locks the key); a passed one forgives the key's failures; a check that throws (the
 * server was too busy to hash) was no attempt and is taken back.
 */
export async function guardedAttempt<T>(
  db: Db,
  keyHash: string,
  now: number,
  check: () => Promise<T | null>,
  policy: LockoutPolicy = SIGN_IN_LOCKOUT,
): Promise<GuardedOutcome<T>> {
  const attempt = await reserveAttempt(db, keyHash, now, policy)
  if ('lockedUntil' in attempt) return attempt
  let accepted: T | null
  try {
    accepted = await check()
  } catch (error) {
    await db.deleteFrom('login_failures').where('id', '=', attempt.id).execute()
    throw error
  }
  if (accepted === null) {
    if (attempt.count >= policy.maxFailures) await lockKey(db, keyHash, now + policy.windowMs)
    return { accepted }
  }
  await db.deleteFrom('login_failures').where('key_hash', '=', keyHash).execute()
  return { accepted }
}

/** Lifts a key's lockout (a password reset by mail proves the address). */
export async function liftLockout(db: Db, keyHash: string): Promise<void> {
  await db.deleteFrom('login_failures').where('key_hash', '=', keyHash).execute()
  await db.deleteFrom('login_locks').where('key_hash', '=', keyHash).execute()
}
