import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Test } from 'tap'
import { SignJWT, exportJWK, generateKeyPair, type JWK, type JWTPayload, type CryptoKey } from 'jose'
import { assertError, buildTestApp, type Dialect, type TestApp } from './app.js'

/**
 * Sign in with Apple and Google against a local key server and a local Google token endpoint,
 * started here on 127.0.0.1 with keys made here: nothing reaches the internet.
 */
export const SIGNUP = '/user-management/signup'
export const SIGNIN = '/user-management/signin'
export const APPLE_ISS = 'https://appleid.apple.com'
export const BUNDLE_ID = 'com.example.game'
export const SERVICE_ID = 'com.example.game.web'
export const GOOGLE_CLIENT = 'client-123.apps.googleusercontent.com'
export const GOOGLE_SECRET = 'google-secret-value'
export const KEYS_COOLDOWN_MS = 10_000

export interface KeyPair {
  kid: string
  privateKey: CryptoKey
  publicKey: CryptoKey
  jwk: JWK
}

export async function makeKey(kid: string): Promise<KeyPair> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true })
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' }
  return { kid, privateKey, publicKey, jwk }
}

export type Exchange = { status: number; body: unknown }

/** Apple's and Google's endpoints, as the test wants them to behave. */
export class Provider {
  appleKeys: KeyPair[] = []
  googleKeys: KeyPair[] = []
  /** JWKS endpoints answer 503 while true. */
  appleDown = false
  googleKeysDown = false
  /** The token endpoint answers 500 while true. */
  tokenDown = false
  appleFetches = 0
  googleFetches = 0
  /** Every form the token endpoint received. */
  exchanges: Array<Record<string, string>> = []
  /** What the token endpoint answers for each code, once: a code is spent by its first exchange. */
  codes = new Map<string, Exchange>()
  private spent = new Set<string>()
  server!: Server
  base = ''

  async start(t: Test) {
    this.server = createServer((req, res) => void this.handle(req, res))
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve))
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
    t.teardown(() => new Promise<void>((resolve) => this.server.close(() => resolve())))
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    if (req.method === 'GET' && req.url === '/apple/keys') {
      this.appleFetches++
      return this.appleDown ? send(503, { error: 'down' }) : send(200, { keys: this.appleKeys.map((k) => k.jwk) })
    }
    if (req.method === 'GET' && req.url === '/google/certs') {
      this.googleFetches++
      return this.googleKeysDown ? send(503, { error: 'down' }) : send(200, { keys: this.googleKeys.map((k) => k.jwk) })
    }
    if (req.method === 'POST' && req.url === '/google/token') {
      let raw = ''
      for await (const chunk of req) raw += chunk
      const form = Object.fromEntries(new URLSearchParams(raw))
      this.exchanges.push({ ...form, contentType: req.headers['content-type'] ?? '' })
      if (this.tokenDown) return send(500, { error: 'internal_failure' })
      const answer = this.codes.get(form.code ?? '')
      const valid =
        answer &&
        !this.spent.has(form.code!) &&
        form.client_id === GOOGLE_CLIENT &&
        form.client_secret === GOOGLE_SECRET &&
        form.grant_type === 'authorization_code'
      if (!valid) return send(400, { error: 'invalid_grant', error_description: 'Bad Request' })
      this.spent.add(form.code!)
      return send(answer.status, answer.body)
    }
    send(404, {})
  }

  env(): Record<string, string> {
    return {
      APPLE_BUNDLE_ID: BUNDLE_ID,
      APPLE_SERVICE_ID: SERVICE_ID,
      APPLE_JWKS_URL: `${this.base}/apple/keys`,
      GOOGLE_CLIENT_ID: GOOGLE_CLIENT,
      GOOGLE_CLIENT_SECRET: GOOGLE_SECRET,
      GOOGLE_TOKEN_URL: `${this.base}/google/token`,
      GOOGLE_JWKS_URL: `${this.base}/google/certs`,
    }
  }
}

let serial = 0
export const unique = (prefix: string) => `${prefix}-${process.pid}-${++serial}`

/** A signed provider token; `claims` override the defaults (null removes one). */
export async function token(
  key: KeyPair,
  now: number,
  claims: Record<string, unknown>,
  header: Record<string, unknown> = {},
): Promise<string> {
  const seconds = Math.floor(now / 1000)
  const payload: JWTPayload = Object.fromEntries(
    Object.entries({ iat: seconds, exp: seconds + 600, ...claims }).filter(([, v]) => v !== null),
  )
  return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid: key.kid, ...header }).sign(key.privateKey)
}

export const appleClaims = (sub: string, extra: Record<string, unknown> = {}) => ({
  iss: APPLE_ISS,
  aud: BUNDLE_ID,
  sub,
  ...extra,
})
export const googleClaims = (sub: string, extra: Record<string, unknown> = {}) => ({
  iss: 'https://accounts.google.com',
  aud: GOOGLE_CLIENT,
  sub,
  ...extra,
})

/** The body the Unity SDK sends (JsonUtility writes every string field, absent ones as ""). */
export const unityApple = (appleIdentityToken: string, signup: boolean) => ({
  type: 'APPLE',
  ...(signup ? { username: '', appleFirstName: '', appleLastName: '' } : {}),
  email: '',
  password: '',
  anonymousToken: '',
  googleAuthorizationCode: '',
  googleRedirectUri: '',
  appleIdentityToken,
})
export const unityGoogle = (googleAuthorizationCode: string, signup: boolean) => ({
  type: 'GOOGLE',
  ...(signup ? { username: '' } : {}),
  email: '',
  password: '',
  anonymousToken: '',
  googleAuthorizationCode,
  googleRedirectUri: '',
})

/** A social sign-in failure body: status and code, authStatus, and no userId key (a null one crashes Godot). */
export function assertFailure(
  t: Test,
  res: { statusCode: number; json(): any },
  status: number,
  code: string,
  auth: string,
) {
  const body = assertError(t, res, status, code)
  t.equal(body.authStatus, auth, `authStatus ${auth}`)
  t.notOk('userId' in body, 'no userId key')
  return body
}

// RSA key generation is slow on a busy machine: every key the tests use, made once, side by side.
export const [appleKey, googleKey, impostorKey, rotatedKey, strangerKey] = await Promise.all([
  makeKey('apple-1'),
  makeKey('google-1'),
  // Signs with a key of its own under the real key's kid: a forged signature.
  makeKey('apple-1'),
  makeKey('apple-2'),
  makeKey('apple-unknown'),
])

/**
 * The provider server and the main app for one database leg, and `fresh` for another app (its own
 * key cache and clock) over the same database: a fresh database per app is slow on MySQL.
 */
export async function socialSetup(t: Test, dialect: Dialect) {
  const provider = new Provider()
  await provider.start(t)
  provider.appleKeys = [appleKey]
  provider.googleKeys = [googleKey]
  const ctx = await buildTestApp(t, dialect, { env: provider.env() })
  const fresh = (env: Record<string, string> = provider.env()): Promise<TestApp> =>
    buildTestApp(t, dialect, {
      env,
      dbEnv: Object.fromEntries(Object.entries(ctx.env).filter(([name]) => name.startsWith('DB_'))),
    })
  /** A code the token endpoint exchanges once for an id_token with these claims. */
  const googleCode = async (claims: Record<string, unknown>, now = ctx.clock.now()) => {
    const code = `4/${unique('code')}`
    provider.codes.set(code, {
      status: 200,
      body: {
        access_token: 'ya29.x',
        expires_in: 3599,
        token_type: 'Bearer',
        id_token: await token(googleKey, now, claims),
      },
    })
    return code
  }
  return { provider, ctx, fresh, googleCode }
}
