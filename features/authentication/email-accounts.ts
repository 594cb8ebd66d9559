import { randomUUID } from 'node:crypto'
import type { Db } from '../../db/types.js'
import type { AccountTokenPurpose } from './tables.js'
import { inTransaction } from '../../db/transaction.js'
import { affected } from '../../db/dialect.js'
import { AppError, badRequest } from '../../platform/core/errors.js'
import { hashToken, randomToken } from '../../platform/security/secrets.js'
import { issueSession, revokeAllSessions } from '../../platform/security/session-store.js'
import {
  assertNotBanned,
  createEmailUser,
  emailKey,
  findUser,
  findUserByEmail,
  generatedName,
  markVerified,
  normalizeName,
  setPasswordHash,
  upgradePasswordHash,
} from '../users/service.js'
import { queueAccountEmail } from '../email-sending/service.js'
import { present } from '../../platform/schemas/common.js'
import type { AuthResponse, SigninBody, SignupBody } from './schemas.js'
import { dummyHash, hashPassword, needsRehash, verifyPassword } from '../../platform/security/passwords.js'
import { guardedAttempt, liftLockout, SIGN_IN_LOCKOUT } from '../../platform/security/login-lockout.js'
import { authResponse, type AuthDeps } from './outcome.js'

/**
 * E-mail accounts: sign-up and sign-in with e-mail and password, verification and
 * password reset through single-use tokens (random, stored as SHA-256, spent by a conditional
 * UPDATE) mailed with the system templates. Sign-in failures are rows counted in SQL, so the
 * lockout holds across instances; the expired ones are deleted by a background job (sweeps.ts).
 */
const VERIFY_TTL_MS = 24 * 3600_000
const RESET_TTL_MS = 3600_000
/** The failures that lock a player's address (SIGN_IN_LOCKOUT's), named for signinWithEmail's rule below. */
export const LOGIN_MAX_FAILURES = SIGN_IN_LOCKOUT.maxFailures
/** Reset mails one account can trigger per hour: forgot-password is open to anyone who knows the address. */
const RESETS_PER_HOUR = 5

function required(value: string | undefined, field: string): string {
  if (value === undefined) throw badRequest(`body/${field} is required`, `/${field}`)
  return value
}

function link(deps: AuthDeps, path: string, token: string) {
  return `${deps.email.publicUrl.replace(/\/+$/, '')}/${path}?token=${encodeURIComponent(token)}`
}

async function issueAccountToken(db: Db, userId: string, purpose: AccountTokenPurpose, now: number, ttlMs: number) {
  const token = randomToken()
  await db
    .insertInto('account_tokens')
    .values({
      id: randomUUID(),
      user_id: userId,
      purpose,
      token_hash: hashToken(token),
      expires_at: now + ttlMs,
      used_at: null,
      created_at: now,
    })
    .execute()
  return token
}

/** Spends a token: of any number of concurrent uses exactly one matches the row. Returns its user. */
async function consumeAccountToken(db: Db, token: string, purpose: AccountTokenPurpose, now: number) {
  const tokenHash = hashToken(token)
  const spent = await db
    .updateTable('account_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst()
  if (affected(spent) !== 1) {
    throw new AppError(400, 'INVALID_TOKEN', 'The token is unknown, already used or expired')
  }
  const row = await db
    .selectFrom('account_tokens')
    .select('user_id')
    .where('token_hash', '=', tokenHash)
    .executeTakeFirstOrThrow()
  return row.user_id
}

/** A new account with its password and first session; unverified until the mailed link is followed. */
export async function signupWithEmail(deps: AuthDeps, body: SignupBody): Promise<AuthResponse> {
  const email = required(present(body.email), 'email')
  // 8–128 characters: the schema has checked the length.
  const password = required(present(body.password), 'password')
  const rawName = present(body.username) ?? present(body.displayName)
  const username =
    rawName === undefined ? generatedName() : normalizeName(rawName, body.username ? 'username' : 'displayName')
  const passwordHash = await hashPassword(password)
  const now = deps.now()
  return inTransaction(deps.db, async (trx) => {
    const user = await createEmailUser(trx, { id: randomUUID(), username, email, passwordHash, createdAt: now })
    const session = await issueSession(trx, user.id, now, deps.lifetimes, {
      withRefresh: body.includeRefreshToken === true,
    })
    if (deps.email.enabled) {
      const token = await issueAccountToken(trx, user.id, 'verify', now, VERIFY_TTL_MS)
      await queueAccountEmail(trx, {
        userId: user.id,
        recipient: user.email!,
        kind: 'verification',
        variables: { username, token, verifyUrl: link(deps, 'verify-email', token) },
        now,
      })
    }
    return authResponse(user, session, null)
  })
}

const invalidCredentials = () =>
  new AppError(401, 'INVALID_CREDENTIALS', 'Wrong e-mail or password', { authStatus: 'INVALID_CREDENTIALS' })

function tooManyAttempts(until: number, now: number) {
  const seconds = Math.max(1, Math.ceil((until - now) / 1000))
  return new AppError(
    429,
    'TOO_MANY_ATTEMPTS',
    'Too many failed sign-ins for this account; try again later',
    // No Retry-After header: the SDKs would wait it out and retry (errors.ts says why).
    { authStatus: 'TOO_MANY_ATTEMPTS', retryAfterSeconds: seconds },
  )
}

/**
 * The lockout's key: the SHA-256 of the address as accounts match it (trimmed, lower-cased). Keyed
 * by address, not by account, so an unknown address locks exactly like a known one (no account
 * enumeration), and the typed addresses themselves are not stored.
 */
const loginKey = (email: string) => hashToken(emailKey(email))

/**
 * Unknown e-mail and wrong password answer alike, and take as long: an unknown e-mail is checked
 * against a dummy hash with the same parameters, and its failures count and lock the same way.
 * After LOGIN_MAX_FAILURES failures for one address within the window, it is locked for the
 * window's length (429), whatever password comes next. A hash made with older parameters is
 * replaced on a successful sign-in.
 */
export async function signinWithEmail(deps: AuthDeps, body: SigninBody): Promise<AuthResponse> {
  const email = required(present(body.email), 'email')
  const password = required(present(body.password), 'password')
  const now = deps.now()
  const keyHash = loginKey(email)
  const outcome = await guardedAttempt(deps.db, keyHash, now, async () => {
    const user = await findUserByEmail(deps.db, email)
    const matches = await verifyPassword(password, user?.password_hash ?? (await dummyHash()))
    return matches && user?.password_hash ? { user, stored: user.password_hash } : null
  })
  if ('lockedUntil' in outcome) throw tooManyAttempts(outcome.lockedUntil, now)
  if (!outcome.accepted) throw invalidCredentials()
  const { user, stored } = outcome.accepted
  if (needsRehash(stored)) {
    // Best effort: with every hash slot busy the old hash stays until the next sign-in.
    const upgraded = await hashPassword(password).catch((error: unknown) => {
      if (error instanceof AppError && error.statusCode === 503) return null
      throw error
    })
    if (upgraded) await upgradePasswordHash(deps.db, user.id, stored, upgraded)
  }
  assertNotBanned(user)
  const session = await issueSession(deps.db, user.id, now, deps.lifetimes, {
    withRefresh: body.includeRefreshToken === true,
  })
  return authResponse(user, session, null)
}

/** Spends a verification token once: a second use of the link finds it gone. */
export async function verifyEmail(deps: AuthDeps, token: string) {
  const now = deps.now()
  await inTransaction(deps.db, async (trx) => {
    const userId = await consumeAccountToken(trx, token, 'verify', now)
    await markVerified(trx, userId, now)
  })
  return { success: true, message: 'E-mail verified' }
}

/** Always the same answer, whether or not the account exists (no account enumeration). */
export async function forgotPassword(deps: AuthDeps, email: string) {
  const answer = { success: true, message: 'If an account exists for this address, a reset e-mail is on its way' }
  if (!deps.email.enabled) return answer
  const user = await findUserByEmail(deps.db, email)
  if (!user || user.password_hash === null || !user.email) return answer
  const now = deps.now()
  await inTransaction(deps.db, async (trx) => {
    const recent = await trx
      .selectFrom('account_tokens')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', user.id)
      .where('purpose', '=', 'reset')
      .where('created_at', '>', now - 3600_000)
      .executeTakeFirstOrThrow()
    if (Number(recent.n) >= RESETS_PER_HOUR) return
    const token = await issueAccountToken(trx, user.id, 'reset', now, RESET_TTL_MS)
    await queueAccountEmail(trx, {
      userId: user.id,
      recipient: user.email!,
      kind: 'reset',
      variables: { username: user.username, token, resetUrl: link(deps, 'reset-password', token) },
      now,
    })
  })
  return answer
}

/**
 * Sets the new password and revokes every session of the user, in one transaction. The other
 * reset tokens die with it, the lockout is lifted, and the address counts as verified: the
 * player has just proved they read its mail.
 */
export async function resetPassword(deps: AuthDeps, token: string, newPassword: string) {
  // The schema refused a bad newPassword before the token was looked at, so it is not spent.
  const passwordHash = await hashPassword(newPassword)
  const now = deps.now()
  await inTransaction(deps.db, async (trx) => {
    const userId = await consumeAccountToken(trx, token, 'reset', now)
    await setPasswordHash(trx, userId, passwordHash, now)
    await markVerified(trx, userId, now)
    await revokeAllSessions(trx, userId, now)
    await trx
      .updateTable('account_tokens')
      .set({ used_at: now })
      .where('user_id', '=', userId)
      .where('purpose', '=', 'reset')
      .where('used_at', 'is', null)
      .execute()
    const user = await findUser(trx, userId)
    if (user?.email) {
      await liftLockout(trx, loginKey(user.email))
    }
  })
  return { success: true, message: 'Password changed; sign in again' }
}
