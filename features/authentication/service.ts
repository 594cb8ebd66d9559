import { randomUUID, timingSafeEqual } from 'node:crypto'
import { inTransaction } from '../../db/transaction.js'
import type { User } from '../users/service.js'
import { AppError, badRequest, notFound } from '../../platform/core/errors.js'
import { hashToken, randomToken } from '../../platform/security/secrets.js'
import { issueSession, spendRefreshToken } from '../../platform/security/session-store.js'
import {
  assertNotBanned,
  createUser,
  findUser,
  findUserByAnonymousTokenHash,
  generatedName,
  normalizeName,
} from '../users/service.js'
import { present } from '../../platform/schemas/common.js'
import type { AuthResponse, SigninBody, SignupBody } from './schemas.js'
import { signinWithEmail, signupWithEmail } from './email-accounts.js'
import { signInWithApple } from './apple.js'
import { signInWithGoogle } from './google.js'
import { authResponse, type AuthDeps, type AuthOutcome } from './outcome.js'

export type { AppAuthDeps, AuthDeps, AuthOutcome } from './outcome.js'

/** 24 random bytes in base64url: exactly 32 characters, the most the SDKs keep in their cache. */
const issueAnonymousToken = () => randomToken(24)

/** Apple and Google: sign-up and sign-in do the same (find or create), so every SDK's flow works. */
function social(deps: AuthDeps, body: SignupBody | SigninBody): Promise<AuthOutcome> | undefined {
  if (body.type === 'APPLE') return signInWithApple(deps, body)
  if (body.type === 'GOOGLE') return signInWithGoogle(deps, body)
  return undefined
}

/**
 * Sign-up: anonymous (the default) or with e-mail, a new user and their first session in one
 * transaction (201); or with Apple or Google (201 created, 200 found).
 */
export async function signup(deps: AuthDeps, body: SignupBody): Promise<AuthOutcome> {
  const viaProvider = social(deps, body)
  if (viaProvider) return viaProvider
  if (body.type === 'EMAIL') return { status: 201, body: await signupWithEmail(deps, body) }
  return { status: 201, body: await signupAnonymous(deps, body) }
}

async function signupAnonymous(deps: AuthDeps, body: SignupBody): Promise<AuthResponse> {
  const rawName = present(body.username) ?? present(body.displayName)
  const username =
    rawName === undefined ? generatedName() : normalizeName(rawName, body.username ? 'username' : 'displayName')
  const anonymousToken = present(body.anonymousToken) ?? issueAnonymousToken()
  const now = deps.now()
  return inTransaction(deps.db, async (trx) => {
    const user = await createUser(trx, {
      id: randomUUID(),
      username,
      is_anonymous: 1,
      anonymous_token_hash: hashToken(anonymousToken),
      created_at: now,
    })
    const session = await issueSession(trx, user.id, now, deps.lifetimes, {
      withRefresh: body.includeRefreshToken === true,
    })
    return authResponse(user, session, anonymousToken)
  })
}

const unknownAnonymousToken = () =>
  notFound('USER_NOT_FOUND', 'No user has this anonymous token', { authStatus: 'USER_NOT_FOUND' })

/**
 * Sign-in with an anonymous token, e-mail and password, Apple or Google, or the renewal of a session
 * with a refresh token (200; 201 when an Apple or Google sign-in created the account).
 */
export async function signin(deps: AuthDeps, body: SigninBody): Promise<AuthOutcome> {
  const refreshToken = present(body.refreshToken)
  if (refreshToken) return { status: 200, body: await renew(deps, refreshToken, present(body.anonymousToken)) }
  const viaProvider = social(deps, body)
  if (viaProvider) return viaProvider
  if (body.type === 'EMAIL') return { status: 200, body: await signinWithEmail(deps, body) }
  return { status: 200, body: await signinAnonymous(deps, body) }
}

async function signinAnonymous(deps: AuthDeps, body: SigninBody): Promise<AuthResponse> {
  const anonymousToken = present(body.anonymousToken)
  if (!anonymousToken) {
    throw badRequest('body/anonymousToken is required', '/anonymousToken')
  }
  const user = await findUserByAnonymousTokenHash(deps.db, hashToken(anonymousToken))
  if (!user) throw unknownAnonymousToken()
  assertNotBanned(user)
  const session = await issueSession(deps.db, user.id, deps.now(), deps.lifetimes, {
    withRefresh: body.includeRefreshToken === true,
  })
  return authResponse(user, session, anonymousToken)
}

/**
 * The anonymous token a refresh answers (contract §3: the token on a sign-in with it, else null). The server
 * keeps only its SHA-256, so it can answer the token only when the client sent it along and it is
 * this user's; otherwise null, as for any sign-in without it. Storing the token readable to answer
 * it on every refresh would turn a leaked database into every anonymous account.
 */
function echoedAnonymousToken(user: User, presented: string | undefined): string | null {
  if (presented === undefined || user.anonymous_token_hash === null) return null
  const matches = timingSafeEqual(
    Buffer.from(hashToken(presented), 'hex'),
    Buffer.from(user.anonymous_token_hash, 'hex'),
  )
  return matches ? presented : null
}

/**
 * Refresh: the token is single-use. Spending it and issuing the successor happen in one transaction,
 * so a failure in between never leaves the player with neither.
 */
async function renew(deps: AuthDeps, refreshToken: string, anonymousToken: string | undefined): Promise<AuthResponse> {
  const now = deps.now()
  const result = await inTransaction(deps.db, async (trx) => {
    const spent = await spendRefreshToken(trx, refreshToken, now)
    if (!spent.ok) return null
    const user = await findUser(trx, spent.userId)
    if (!user) return null
    assertNotBanned(user)
    const session = await issueSession(trx, user.id, now, deps.lifetimes, {
      withRefresh: true,
      familyId: spent.familyId,
    })
    return authResponse(user, session, echoedAnonymousToken(user, anonymousToken))
  })
  if (!result) {
    throw new AppError(401, 'SESSION_REQUIRED', 'The refresh token is not valid (unknown, expired, used or revoked)')
  }
  return result
}
