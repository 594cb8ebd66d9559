/**
 * Sign in with Google: the authorization code exchanged once, the id_tokens that are refused, and a
 * token endpoint that is down or unreachable; against a local Google token endpoint started on
 * 127.0.0.1 with keys made in the test: nothing reaches the internet. Apple:
 * social-signin-apple.test.ts; the key cache and provider outages: social-keys.test.ts.
 */
import t from 'tap'
import { eachDialect } from '../../helpers/app.js'
import {
  APPLE_ISS,
  GOOGLE_CLIENT,
  GOOGLE_SECRET,
  SIGNIN,
  SIGNUP,
  assertFailure,
  googleClaims,
  socialSetup,
  unique,
  unityGoogle,
} from '../../helpers/social.js'

eachDialect(t, async (t, dialect) => {
  const { provider, ctx, fresh, googleCode } = await socialSetup(t, dialect)
  const { call, clock } = ctx

  t.test('Google: the code is exchanged once; sign-up with the same code within 10 minutes finds', async (t) => {
    const sub = unique('1098765')
    const code = await googleCode(googleClaims(sub, { email: `${sub}@gmail.com`, email_verified: true, name: 'Grace' }))
    const before = provider.exchanges.length
    // Unity: every field, googleRedirectUri "".
    const created = await call({ method: 'POST', url: SIGNIN, payload: unityGoogle(code, false) })
    t.equal(created.statusCode, 201, created.body)
    t.match(created.json(), {
      googleId: sub,
      appleUserId: null,
      email: `${sub}@gmail.com`,
      username: 'Grace',
      isAnonymous: false,
      authStatus: 'AUTHENTICATED',
    })
    t.type(created.json().accessToken, 'string')
    t.same(provider.exchanges.slice(before), [
      {
        client_id: GOOGLE_CLIENT,
        client_secret: GOOGLE_SECRET,
        code,
        grant_type: 'authorization_code',
        redirect_uri: '',
        contentType: 'application/x-www-form-urlencoded',
      },
    ])
    clock.advance(9 * 60_000)
    const signup = await call({ method: 'POST', url: SIGNUP, payload: unityGoogle(code, true) })
    t.equal(signup.statusCode, 200, 'the SDK signs up with the code sign-in used')
    t.equal(signup.json().userId, created.json().userId)
    t.equal(provider.exchanges.length, before + 1, 'without a second exchange')

    // Unreal leaves the redirect URI out; Godot sends the one it used, and it is passed on.
    const godotCode = await googleCode(googleClaims(sub))
    const godot = await call({
      method: 'POST',
      url: SIGNIN,
      payload: { type: 'GOOGLE', googleAuthorizationCode: godotCode, googleRedirectUri: 'http://127.0.0.1:7777/cb' },
    })
    t.equal(godot.statusCode, 200, 'a new code for the same account finds it')
    t.equal(godot.json().userId, created.json().userId)
    t.equal(provider.exchanges.at(-1)!.redirect_uri, 'http://127.0.0.1:7777/cb')

    clock.advance(2 * 60_000)
    const late = await call({ method: 'POST', url: SIGNUP, payload: { type: 'GOOGLE', googleAuthorizationCode: code } })
    assertFailure(t, late, 401, 'INVALID_GOOGLE_CODE', 'INVALID_CREDENTIALS')
    t.equal(
      provider.exchanges.length,
      before + 3,
      'after 10 minutes the code is exchanged again, and Google refuses it',
    )
  })

  t.test('Google: a refused code, a foreign or expired id_token are 401; the name falls back', async (t) => {
    assertFailure(
      t,
      await call({ method: 'POST', url: SIGNIN, payload: { type: 'GOOGLE', googleAuthorizationCode: 'never-issued' } }),
      401,
      'INVALID_GOOGLE_CODE',
      'INVALID_CREDENTIALS',
    )
    const seconds = Math.floor(clock.now() / 1000)
    for (const [name, claims] of [
      ['wrong audience', googleClaims(unique('g'), { aud: 'other-client' })],
      ['wrong issuer', googleClaims(unique('g'), { iss: APPLE_ISS })],
      ['expired', googleClaims(unique('g'), { exp: seconds - 120 })],
    ] as const) {
      const code = await googleCode(claims)
      t.test(name, async (t) => {
        assertFailure(
          t,
          await call({ method: 'POST', url: SIGNIN, payload: { type: 'GOOGLE', googleAuthorizationCode: code } }),
          401,
          'INVALID_GOOGLE_CODE',
          'INVALID_CREDENTIALS',
        )
      })
    }
    const noIdToken = `4/${unique('code')}`
    provider.codes.set(noIdToken, { status: 200, body: { access_token: 'ya29.x', token_type: 'Bearer' } })
    assertFailure(
      t,
      await call({ method: 'POST', url: SIGNIN, payload: { type: 'GOOGLE', googleAuthorizationCode: noIdToken } }),
      401,
      'INVALID_GOOGLE_CODE',
      'INVALID_CREDENTIALS',
    )
    const plain = await call({
      method: 'POST',
      url: SIGNUP,
      payload: {
        type: 'GOOGLE',
        googleAuthorizationCode: await googleCode(
          googleClaims(unique('g'), { iss: 'accounts.google.com', email: 'jo.smith@gmail.com', email_verified: true }),
        ),
      },
    })
    t.equal(plain.statusCode, 201, 'the issuer without https:// is accepted')
    t.equal(plain.json().username, 'jo.smith', "the e-mail's local part when Google gives no name")
    const unverified = await call({
      method: 'POST',
      url: SIGNUP,
      payload: {
        type: 'GOOGLE',
        googleAuthorizationCode: await googleCode(
          googleClaims(unique('g'), { email: 'someone@example.org', email_verified: false }),
        ),
      },
    })
    t.equal(unverified.statusCode, 201)
    t.equal(unverified.json().email, null, 'an address Google does not vouch for is not taken')
    t.match(unverified.json().username, /^Player-\d{4}$/)
  })

  t.test('Google: the token endpoint down is 503 with Retry-After, and the code stays usable', async (t) => {
    const sub = unique('down')
    const code = await googleCode(googleClaims(sub))
    provider.tokenDown = true
    try {
      const res = await call({
        method: 'POST',
        url: SIGNIN,
        payload: { type: 'GOOGLE', googleAuthorizationCode: code },
      })
      assertFailure(t, res, 503, 'SERVICE_UNAVAILABLE', 'SERVICE_UNAVAILABLE')
      t.ok(Number(res.headers['retry-after']) > 0, 'Retry-After')
    } finally {
      provider.tokenDown = false
    }
    const retry = await call({
      method: 'POST',
      url: SIGNIN,
      payload: { type: 'GOOGLE', googleAuthorizationCode: code },
    })
    t.equal(retry.statusCode, 201, 'the retry exchanges the code')

    // Nothing listens on port 1: the connection is refused.
    const unreachable = await fresh({ ...provider.env(), GOOGLE_TOKEN_URL: 'http://127.0.0.1:1/token' })
    const refused = await unreachable.call({
      method: 'POST',
      url: SIGNIN,
      payload: { type: 'GOOGLE', googleAuthorizationCode: await googleCode(googleClaims(unique('g'))) },
    })
    assertFailure(t, refused, 503, 'SERVICE_UNAVAILABLE', 'SERVICE_UNAVAILABLE')
    t.ok(Number(refused.headers['retry-after']) > 0, 'Retry-After')
  })
})
