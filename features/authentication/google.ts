import { upsert } from '../../db/dialect.js'
import type { Db } from '../../db/types.js'
import { hashToken } from '../../platform/security/secrets.js'
import { present } from '../../platform/schemas/common.js'
import type { SigninBody, SignupBody } from './schemas.js'
import type { AuthDeps, AuthOutcome } from './outcome.js'
import { ProviderUnavailableError } from './jwks.js'
import {
  PROVIDER_TIMEOUT_MS,
  checkIdToken,
  chosenName,
  derivedName,
  findOrCreateSocialUser,
  invalidCredential,
  localPart,
  missingField,
  notConfigured,
  numberedName,
  providerUnavailable,
  vouchedEmail,
} from './social.js'

/**
 * Sign in with Google: the app sends a server auth code, exchanged once at Google's token endpoint
 * for an id_token, which is checked against Google's keys. A code can be exchanged only once, and
 * the SDKs send the same code to sign-in and then to sign-up, so what the exchange gave is kept 10
 * minutes in the database (every instance sees it) under the SHA-256 of the code: the checked
 * identity, or the token response when its id_token could not be checked yet (keys unreachable),
 * so that the SDK's retry with the same code checks the kept token instead of spending the code.
 */
const ISSUERS = ['accounts.google.com', 'https://accounts.google.com']
const CODE_TTL_MS = 10 * 60_000

interface GoogleIdentity {
  sub: string
  email: string | null
  name: string | null
}

type Kept = { kind: 'identity'; identity: GoogleIdentity } | { kind: 'token'; idToken: string }

async function kept(db: Db, codeHash: string, now: number): Promise<Kept | undefined> {
  const row = await db
    .selectFrom('google_codes')
    .select(['kind', 'payload'])
    .where('code_hash', '=', codeHash)
    .where('expires_at', '>', now)
    .executeTakeFirst()
  if (!row) return undefined
  return row.kind === 'identity'
    ? { kind: 'identity', identity: JSON.parse(row.payload) as GoogleIdentity }
    : { kind: 'token', idToken: row.payload }
}

/**
 * Keeps what a code gave until 10 minutes after its exchange (a kept token becomes an identity once
 * checked). An expired row of the same code is overwritten, expiry included; expired rows are
 * deleted by the sign-in sweep job (sweeps.ts), not here.
 */
async function keep(db: Db, codeHash: string, value: Kept, now: number, expiresAt = now + CODE_TTL_MS) {
  await upsert(
    db,
    'google_codes',
    [
      {
        code_hash: codeHash,
        kind: value.kind,
        payload: value.kind === 'identity' ? JSON.stringify(value.identity) : value.idToken,
        expires_at: expiresAt,
      },
    ],
    { key: ['code_hash'], update: ['kind', 'payload', 'expires_at'] },
  )
}

type Exchange = { ok: true; idToken: string } | { ok: false; refused: boolean }

/** The code exchange (RFC 6749 §4.1.3). `refused`: Google answered and said no (a 4xx, or no id_token). */
async function exchange(deps: AuthDeps, code: string, redirectUri: string): Promise<Exchange> {
  const { clientId, clientSecret, tokenUrl } = deps.social.google
  let response: Response
  let document: unknown
  try {
    response = await fetch(tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        client_id: clientId,
        client_secret: clientSecret,
        code,
        grant_type: 'authorization_code',
        redirect_uri: redirectUri,
      }),
      signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
    })
    if (response.status >= 500 || response.status === 429) return { ok: false, refused: false }
    if (!response.ok) return { ok: false, refused: true }
    document = await response.json()
  } catch {
    // Unreachable, timed out, or cut off mid-answer: the code may well be unspent, the client retries.
    return { ok: false, refused: false }
  }
  const idToken = (document as { id_token?: unknown } | null)?.id_token
  // Exchanged, but without an id_token (the `openid` scope was not asked for): nothing to sign in with.
  if (typeof idToken !== 'string' || idToken === '') return { ok: false, refused: true }
  return { ok: true, idToken }
}

const invalidCode = () =>
  invalidCredential(
    'INVALID_GOOGLE_CODE',
    'The Google authorization code is not valid (unknown, expired or already used) or its token could not be verified; sign in with Google again',
  )

/** Checks an id_token; a valid one becomes the identity kept for its code. */
async function identityOf(deps: AuthDeps, idToken: string): Promise<GoogleIdentity> {
  const { keys } = deps.social.google
  // The request's game's client ids (contract §14), whichever client exchanged the code.
  const audience = deps.settings.googleAudiences
  const check = await checkIdToken(idToken, keys, { issuer: ISSUERS, audience, now: deps.now() })
  if (!check.ok) throw invalidCode()
  const { claims } = check
  return {
    sub: claims.sub,
    email: vouchedEmail(claims),
    name: typeof claims.name === 'string' ? claims.name : null,
  }
}

async function resolveCode(deps: AuthDeps, code: string, redirectUri: string): Promise<GoogleIdentity> {
  const codeHash = hashToken(code)
  const now = deps.now()
  let known = await kept(deps.db, codeHash, now)
  if (!known) {
    const result = await exchange(deps, code, redirectUri)
    if (!result.ok) {
      if (!result.refused) throw providerUnavailable('Google')
      // Refused: maybe because a concurrent request with the same code spent it a moment ago.
      known = await kept(deps.db, codeHash, deps.now())
      if (!known) throw invalidCode()
    } else {
      known = { kind: 'token', idToken: result.idToken }
      try {
        const identity = await identityOf(deps, result.idToken)
        await keep(deps.db, codeHash, { kind: 'identity', identity }, now)
        return identity
      } catch (error) {
        // The code is spent: keep the token response so the client's retry can check it later.
        if (error instanceof ProviderUnavailableError) await keep(deps.db, codeHash, known, now)
        throw error
      }
    }
  }
  if (known.kind === 'identity') return known.identity
  const identity = await identityOf(deps, known.idToken)
  await deps.db
    .updateTable('google_codes')
    .set({ kind: 'identity', payload: JSON.stringify(identity) })
    .where('code_hash', '=', codeHash)
    .execute()
  return identity
}

/** Sign-up and sign-in with Google: the code is exchanged once, and a retried code reuses its identity. */
export async function signInWithGoogle(deps: AuthDeps, body: SignupBody | SigninBody): Promise<AuthOutcome> {
  const { clientId, clientSecret } = deps.social.google
  if (!clientId || !clientSecret || deps.settings.googleAudiences.length === 0)
    throw notConfigured('GOOGLE_NOT_CONFIGURED', 'Google')
  const code = present(body.googleAuthorizationCode)
  if (code === undefined) throw missingField('googleAuthorizationCode')
  const username = chosenName(present(body.username))
  let identity: GoogleIdentity
  try {
    identity = await resolveCode(deps, code, present(body.googleRedirectUri) ?? '')
  } catch (error) {
    if (error instanceof ProviderUnavailableError) throw providerUnavailable('Google')
    throw error
  }
  return findOrCreateSocialUser(
    deps,
    {
      provider: 'google',
      subject: identity.sub,
      email: identity.email,
      isPrivateEmail: false,
      name: () => username ?? derivedName(identity.name, localPart(identity.email)) ?? numberedName('Player'),
    },
    { withRefresh: body.includeRefreshToken === true, conflictCode: 'USER_ALREADY_EXISTS' },
  )
}
