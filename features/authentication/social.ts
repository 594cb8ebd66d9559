import { randomInt, randomUUID } from 'node:crypto'
import { errors, jwtVerify, type JWTPayload } from 'jose'
import type { SocialProvider } from '../users/service.js'
import { inTransaction } from '../../db/transaction.js'
import { AppError } from '../../platform/core/errors.js'
import { issueSession } from '../../platform/security/session-store.js'
import {
  NAME_MAX,
  SocialUserConflict,
  assertNotBanned,
  createSocialUser,
  findUserBySubject,
  normalizeName,
} from '../users/service.js'
import type { AuthResponse } from './schemas.js'
import { withoutForbiddenNameCharacters } from '../../platform/schemas/common.js'
import { KeySetCache, ProviderUnavailableError } from './jwks.js'
import { authResponse, type AuthDeps, type AuthOutcome, type SocialSettings } from './outcome.js'

/**
 * What sign-in with Apple and Google share: checking a provider's JWT, and finding or creating the
 * one user bound to the provider's subject. Sign-up and sign-in do the same thing (the SDKs call one,
 * then the other), answering 200 for a user found and 201 for one created.
 */

/** Every call to a provider (keys, code exchange) gives up after this long. */
export const PROVIDER_TIMEOUT_MS = 5000
/** Keys are fetched again after this long (and at once for a `kid` the cache does not know). */
const KEYS_MAX_AGE_MS = 3600_000
/** At most one fetch of a provider's keys per this interval (unknown `kid`s, failing endpoint). */
export const KEYS_COOLDOWN_MS = 10_000
/** Clock skew tolerated on `exp`, `iat` and `nbf` (seconds). */
const CLOCK_TOLERANCE_S = 60
/** What a client is told to wait before retrying when a provider is unreachable (seconds). */
const RETRY_AFTER_S = 5

/** Built once per app, so each provider's keys are cached for the app's life, not per request. */
export function createSocialSettings(
  config: {
    APPLE_JWKS_URL: string
    GOOGLE_CLIENT_ID: string
    GOOGLE_CLIENT_SECRET: string
    GOOGLE_TOKEN_URL: string
    GOOGLE_JWKS_URL: string
  },
  now: () => number,
  onFetchFailed?: (message: string) => void,
): SocialSettings {
  const keys = (url: string) =>
    new KeySetCache({
      url,
      now,
      timeoutMs: PROVIDER_TIMEOUT_MS,
      maxAgeMs: KEYS_MAX_AGE_MS,
      cooldownMs: KEYS_COOLDOWN_MS,
      onFetchFailed,
    })
  return {
    apple: { keys: keys(config.APPLE_JWKS_URL) },
    google: {
      // GOOGLE_CLIENT_ID is also the default game's list of accepted audiences: the first is the client.
      clientId: config.GOOGLE_CLIENT_ID.split(',')[0]!.trim(),
      clientSecret: config.GOOGLE_CLIENT_SECRET,
      tokenUrl: config.GOOGLE_TOKEN_URL,
      keys: keys(config.GOOGLE_JWKS_URL),
    },
  }
}

// ---- errors: every failure carries authStatus and no userId (a `userId: null` crashes the Godot SDK)

/** A 400 an SDK can show: the operator, not the player, must act. */
export const notConfigured = (code: 'APPLE_NOT_CONFIGURED' | 'GOOGLE_NOT_CONFIGURED', provider: string) =>
  new AppError(400, code, `Sign-in with ${provider} is not configured on this server; ask its operator to set it up`, {
    authStatus: code,
  })

/** A 401 that says INVALID_CREDENTIALS, which the SDKs treat as "sign in again". */
export const invalidCredential = (code: 'INVALID_APPLE_TOKEN' | 'INVALID_GOOGLE_CODE', message: string) =>
  new AppError(401, code, message, { authStatus: 'INVALID_CREDENTIALS' })

/** A validation error that also carries authStatus, as every auth failure must for the SDKs. */
export const missingField = (field: string) =>
  new AppError(400, 'VALIDATION_ERROR', `body/${field} is required`, {
    details: [{ path: `/${field}`, message: 'is required' }],
    authStatus: 'INVALID_CREDENTIALS',
  })

/** A 503 with Retry-After: the provider failed, not the player, so the client should try again. */
export const providerUnavailable = (provider: string) =>
  new AppError(
    503,
    'SERVICE_UNAVAILABLE',
    `${provider} could not be reached to check the sign-in; try again in a few seconds`,
    { authStatus: 'SERVICE_UNAVAILABLE' },
    { 'retry-after': String(RETRY_AFTER_S) },
  )

/** A 409 when the provider's address belongs to an account that signs in another way: never merged silently. */
export const emailConflict = (code: 'APPLE_EMAIL_CONFLICT' | 'USER_ALREADY_EXISTS') =>
  new AppError(409, code, 'Email already registered with a different authentication method', { authStatus: code })

// ---- tokens

/** The longest provider subject stored (Apple's are ~44 characters, Google's ~21 digits). */
const SUBJECT_MAX = 255

/** A JWT's verdict: its claims, or the reason it was refused (logged, never shown to the client). */
export type TokenCheck = { ok: true; claims: JWTPayload & { sub: string } } | { ok: false; reason: string }

/**
 * Checks a provider's JWT: RS256 only (`alg: none` and HMAC tokens are refused before any key is
 * looked at), signed by one of its keys, issuer, audience, not expired with 60 s leeway, a subject.
 * A token that cannot be checked because the keys cannot be fetched throws ProviderUnavailableError.
 */
export async function checkIdToken(
  token: string,
  keys: KeySetCache,
  expected: { issuer: string[]; audience: string[]; now: number },
): Promise<TokenCheck> {
  try {
    const { payload } = await jwtVerify(token, keys.getKey, {
      algorithms: ['RS256'],
      issuer: expected.issuer,
      audience: expected.audience,
      clockTolerance: CLOCK_TOLERANCE_S,
      currentDate: new Date(expected.now),
      requiredClaims: ['exp', 'sub'],
    })
    if (typeof payload.sub !== 'string' || payload.sub.length === 0 || payload.sub.length > SUBJECT_MAX) {
      return { ok: false, reason: 'the token has no valid subject' }
    }
    return { ok: true, claims: payload as JWTPayload & { sub: string } }
  } catch (error) {
    if (error instanceof ProviderUnavailableError) throw error
    if (error instanceof errors.JOSEError) return { ok: false, reason: error.code }
    throw error
  }
}

/** A JWT boolean claim: Apple sends some as the strings "true" / "false". */
export const claimTrue = (value: unknown) => value === true || value === 'true'

/** The address a token carries, unless the provider says it is not verified (then it is not used). */
export function vouchedEmail(claims: JWTPayload): string | null {
  const email = typeof claims.email === 'string' ? claims.email.trim() : ''
  if (!email || email.length > 254) return null
  if (claims.email_verified === false || claims.email_verified === 'false') return null
  return email
}

// ---- names

/** A name from the provider's data: what no shown name may hold dropped, trimmed, cut to the name limit. */
export function derivedName(...candidates: Array<string | undefined | null>): string | undefined {
  for (const candidate of candidates) {
    const name = [...withoutForbiddenNameCharacters(candidate ?? '').trim()].slice(0, NAME_MAX).join('').trim()
    if (name) return name
  }
  return undefined
}

/** The local part of an address, for a name. */
export const localPart = (email: string | null | undefined) => email?.split('@')[0]

/** `Apple-4821`, `Player-4821`: a name when the provider gave none. */
export const numberedName = (prefix: string) => `${prefix}-${randomInt(1000, 10000)}`

/** The name a client chose (`username`), checked like every name: 1–50 characters after trimming. */
export const chosenName = (username: string | undefined) =>
  username === undefined ? undefined : normalizeName(username, 'username')

// ---- find or create

/** A provider's checked identity, whichever provider: what findOrCreateSocialUser binds a user to. */
export interface SocialIdentity {
  provider: SocialProvider
  subject: string
  /** The address the provider vouches for, or null. */
  email: string | null
  isPrivateEmail: boolean
  /** The name a new user gets (never used for a user found). */
  name: () => string
}

function socialResponse(
  base: AuthResponse,
  provider: SocialProvider,
  subject: string,
  isPrivateEmail: boolean,
): AuthResponse {
  return {
    ...base,
    googleId: provider === 'google' ? subject : null,
    appleUserId: provider === 'apple' ? subject : null,
    isPrivateRelayEmail: isPrivateEmail,
  }
}

/**
 * Finds the user bound to the subject (200) or creates one (201), and starts a session. Two sign-ins
 * racing for a new subject both try to create; the primary key lets one commit, and the other finds
 * its user on the second look. An address another account already has is a 409, never a link.
 */
export async function findOrCreateSocialUser(
  deps: AuthDeps,
  identity: SocialIdentity,
  options: { withRefresh: boolean; conflictCode: 'APPLE_EMAIL_CONFLICT' | 'USER_ALREADY_EXISTS' },
): Promise<AuthOutcome> {
  const existing = async (): Promise<AuthOutcome | undefined> => {
    const found = await findUserBySubject(deps.db, identity.provider, identity.subject)
    if (!found) return undefined
    assertNotBanned(found.user)
    const session = await issueSession(deps.db, found.user.id, deps.now(), deps.lifetimes, {
      withRefresh: options.withRefresh,
    })
    return {
      status: 200,
      body: socialResponse(
        authResponse(found.user, session, null),
        identity.provider,
        identity.subject,
        found.identity.is_private_email === 1,
      ),
    }
  }
  const found = await existing()
  if (found) return found
  const now = deps.now()
  try {
    return await inTransaction(deps.db, async (trx) => {
      const { user } = await createSocialUser(trx, {
        id: randomUUID(),
        username: identity.name(),
        email: identity.email,
        provider: identity.provider,
        subject: identity.subject,
        isPrivateEmail: identity.isPrivateEmail,
        createdAt: now,
      })
      const session = await issueSession(trx, user.id, now, deps.lifetimes, { withRefresh: options.withRefresh })
      return {
        status: 201 as const,
        body: socialResponse(
          authResponse(user, session, null),
          identity.provider,
          identity.subject,
          identity.isPrivateEmail,
        ),
      }
    })
  } catch (error) {
    if (!(error instanceof SocialUserConflict)) throw error
  }
  // Lost a race for the subject (the winner's user is ours), or the address belongs to another account.
  const winner = await existing()
  if (winner) return winner
  throw emailConflict(options.conflictCode)
}
