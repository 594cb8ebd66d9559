import { randomUUID } from 'node:crypto'
import type { Db, OperatorRole } from '../../db/types.js'
import { withTransaction } from '../../db/transaction.js'
import { AppError } from '../../platform/core/errors.js'
import { hashToken, randomToken } from '../../platform/security/secrets.js'
import { dummyHash, verifyPassword } from '../../platform/security/passwords.js'
import { recordAudit, SIGN_IN_FAILED } from '../../platform/security/audit.js'
import {
  guardedAttempt,
  reserveAttempt,
  scopedLockoutKey,
  type LockoutPolicy,
} from '../../platform/security/login-lockout.js'
import {
  findOperator,
  normalizeUsername,
  rolesOf,
  SESSION_MAX_MS,
  type AuditContext,
  type GameRoles,
} from './service.js'
import { passesSecondFactor } from './second-factor.js'

/**
 * Console sign-in, and the re-authentication a change of one's own credentials needs. Every check
 * of an operator's password runs under the name's lockout (security/login-lockout.ts): the attempt
 * takes a slot in SQL before the slow check, so 10 failures in 15 minutes lock the name on every
 * worker and instance, however many guesses arrive at once, and correct ones never count.
 */

/**
 * Failed sign-ins written to the audit log per client address and window, at most: they carry a
 * name and a request id anyone can choose, so past this an address fills no more of the log.
 */
export const AUDITED_FAILURES_PER_ADDRESS: LockoutPolicy = { maxFailures: 20, windowMs: 15 * 60_000 }

/** The name's lockout key: its own scope, so no e-mail typed at the player sign-in shares it. */
const nameKey = (name: string) => scopedLockoutKey('OPERATOR', name)

/** A console sign-in's result: the cookie's token (shown once) and who signed in. */
export interface SignIn {
  token: string
  sessionId: string
  username: string
  role: OperatorRole
  /** A non-owner's roles per game; null for an owner. */
  roles: GameRoles | null
  expiresAt: number
}

const invalidCredentials = () =>
  new AppError(401, 'INVALID_CREDENTIALS', 'The name, password or TOTP code is wrong: check them and try again')

const tooManyAttempts = () =>
  new AppError(
    429,
    'TOO_MANY_ATTEMPTS',
    'Too many failed sign-ins for this name: wait 15 minutes, or have an owner reset the password',
  )

/**
 * A failed sign-in's audit entry, unless its address has had AUDITED_FAILURES_PER_ADDRESS recorded
 * in the window already (the slot is taken in SQL, so the cap holds across instances too). The
 * actor is the name as claimed: the audit API shows such entries with `actorVerified: false`.
 */
async function recordFailure(db: Db, name: string, context: Omit<AuditContext, 'actor' | 'role'>) {
  const key = scopedLockoutKey('OPERATOR-AUDIT', context.address)
  const slot = await reserveAttempt(db, key, context.now, AUDITED_FAILURES_PER_ADDRESS, { inFlight: false })
  if (!('id' in slot)) return
  await recordAudit(db, {
    address: context.address,
    requestId: context.requestId,
    at: context.now,
    target: null,
    actor: name,
    role: null,
    action: SIGN_IN_FAILED,
    status: 401,
  })
}

/**
 * Signs an operator in: one answer for every failure (401 INVALID_CREDENTIALS), failures kept in
 * the audit log (capped per address), and a name with 10 failures in 15 minutes refused (429
 * TOO_MANY_ATTEMPTS) before its password is even checked. The password is checked outside any
 * transaction (it takes a quarter second).
 */
export async function signIn(
  db: Db,
  input: { username: string; password: string; totp?: string },
  context: Omit<AuditContext, 'actor' | 'role'>,
): Promise<SignIn> {
  const name = normalizeUsername(input.username).slice(0, 64)
  const { now } = context
  const outcome = await guardedAttempt(db, nameKey(name), now, async () => {
    const row = await findOperator(db, name)
    const ok = await verifyPassword(input.password, row?.password_hash ?? (await dummyHash()))
    return row && ok && (await passesSecondFactor(db, row, input.totp, now)) ? row : null
  })
  if ('lockedUntil' in outcome) throw tooManyAttempts()
  const row = outcome.accepted
  if (!row) {
    await recordFailure(db, name, context)
    throw invalidCredentials()
  }
  const token = randomToken(32)
  const session = { id: randomUUID(), expiresAt: now + SESSION_MAX_MS }
  await withTransaction(db, async (trx) => {
    await trx
      .insertInto('operator_sessions')
      .values({
        id: session.id,
        operator_id: row.id,
        token_hash: hashToken(token),
        created_at: now,
        last_seen_at: now,
        expires_at: session.expiresAt,
      })
      .execute()
    await recordAudit(trx, {
      address: context.address,
      requestId: context.requestId,
      at: now,
      target: null,
      actor: row.username,
      role: row.role,
      action: 'sign-in',
      status: 200,
    })
  })
  return {
    token,
    sessionId: session.id,
    username: row.username,
    role: row.role,
    roles: rolesOf(row),
    expiresAt: session.expiresAt,
  }
}

/**
 * The check a change of one's own password or second factor needs: the current password and, when
 * a factor is set, a current code of it (spent). Counted against the name's lockout like a sign-in,
 * so a stolen session cannot be used to guess the password. Answers the stored hash (for a change
 * conditional on it), or throws 401 INVALID_CREDENTIALS / 429 TOO_MANY_ATTEMPTS.
 */
export async function reauthenticate(
  db: Db,
  operatorId: string,
  proof: { password: string; totp?: string; needsTotp: boolean },
  now: number,
): Promise<string> {
  const row = await db.selectFrom('operators').selectAll().where('id', '=', operatorId).executeTakeFirst()
  if (!row) throw new AppError(401, 'UNAUTHORIZED', 'This operator no longer exists: sign in again')
  const outcome = await guardedAttempt(db, nameKey(row.username), now, async () => {
    const ok = await verifyPassword(proof.password, row.password_hash)
    if (!ok) return null
    if (proof.needsTotp && !(await passesSecondFactor(db, row, proof.totp, now))) return null
    return row.password_hash
  })
  if ('lockedUntil' in outcome) throw tooManyAttempts()
  if (outcome.accepted === null) {
    throw new AppError(
      401,
      'INVALID_CREDENTIALS',
      proof.needsTotp && row.totp_secret
        ? 'The current password or TOTP code is wrong: check them and try again'
        : 'The current password is wrong: check it and try again',
    )
  }
  return outcome.accepted
}
