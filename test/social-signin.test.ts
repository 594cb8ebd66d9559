/**
 * Sign in with Apple and Google (the flows, conflicts, races, the admin view) against a local key
 * server and a local Google token endpoint started on 127.0.0.1 with keys made in the test:
 * nothing reaches the internet. The key cache and provider outages: social-keys.test.ts.
 */
import t from 'tap'
import { exportSPKI, SignJWT } from 'jose'
import { assertError, eachDialect } from './helpers/app.js'
import { createUser } from './fixtures/users.js'
import {
  APPLE_ISS,
  GOOGLE_CLIENT,
  GOOGLE_SECRET,
  SERVICE_ID,
  SIGNIN,
  SIGNUP,
  appleClaims,
  appleKey,
  assertFailure,
  googleClaims,
  impostorKey,
  socialSetup,
  token,
  unique,
  unityApple,
  unityGoogle,
} from './helpers/social.js'

eachDialect(t, async (t, dialect) => {
  const { provider, ctx, fresh, googleCode } = await socialSetup(t, dialect)
  const { call, clock } = ctx

  t.test('Apple: sign-in creates, sign-in again finds, sign-up with the same token finds', async (t) => {
    const sub = unique('001234.apple')
    const idToken = await token(appleKey, clock.now(), appleClaims(sub, { email: `${sub}@example.org` }))
    // Unreal: only the fields it has; the first sign-in creates the account.
    const created = await call({
      method: 'POST',
      url: SIGNIN,
      payload: { type: 'APPLE', appleIdentityToken: idToken, appleFirstName: 'Ada', appleLastName: 'Lovelace' },
    })
    t.equal(created.statusCode, 201, created.body)
    const body = created.json()
    t.match(body, {
      username: 'Ada Lovelace',
      email: `${sub}@example.org`,
      isAnonymous: false,
      isVerified: true,
      anonymousToken: null,
      authStatus: 'AUTHENTICATED',
      googleId: null,
      appleUserId: sub,
      isPrivateRelayEmail: false,
    })
    t.match(body.userId, /^[0-9a-f-]{36}$/)
    t.type(body.accessToken, 'string')
    const check = await call({
      method: 'POST',
      url: '/user-management/check-auth',
      payload: { userId: body.userId, sessionToken: body.accessToken },
    })
    t.equal(check.json().isAuthenticated, true, 'the session works')

    // Unity: every field, empty ones as "".
    const again = await call({ method: 'POST', url: SIGNIN, payload: unityApple(idToken, false) })
    t.equal(again.statusCode, 200)
    t.equal(again.json().userId, body.userId)
    t.not(again.json().accessToken, body.accessToken, 'a new session')
    // Godot: the token it signed in with goes to sign-up as well.
    const signup = await call({ method: 'POST', url: SIGNUP, payload: unityApple(idToken, true) })
    t.equal(signup.statusCode, 200)
    t.match(signup.json(), { userId: body.userId, appleUserId: sub, username: 'Ada Lovelace' })
  })

  t.test('Apple: the Services ID is an accepted audience too; names and private relay', async (t) => {
    const relaySub = unique('relay')
    const relay = await call({
      method: 'POST',
      url: SIGNUP,
      payload: {
        type: 'APPLE',
        appleIdentityToken: await token(
          appleKey,
          clock.now(),
          appleClaims(relaySub, {
            aud: SERVICE_ID,
            email: `${relaySub}@privaterelay.appleid.com`,
            is_private_email: 'true',
            email_verified: 'true',
          }),
        ),
      },
    })
    t.equal(relay.statusCode, 201, relay.body)
    t.match(relay.json(), { isPrivateRelayEmail: true, username: relaySub })
    const again = await call({
      method: 'POST',
      url: SIGNIN,
      payload: {
        type: 'APPLE',
        appleIdentityToken: await token(appleKey, clock.now(), appleClaims(relaySub, { aud: SERVICE_ID })),
      },
    })
    t.match(again.json(), { isPrivateRelayEmail: true, userId: relay.json().userId }, 'kept for the found user')

    const bare = await call({
      method: 'POST',
      url: SIGNIN,
      payload: { type: 'APPLE', appleIdentityToken: await token(appleKey, clock.now(), appleClaims(unique('bare'))) },
    })
    t.equal(bare.statusCode, 201)
    t.match(bare.json().username, /^Apple-\d{4}$/)
    t.equal(bare.json().email, null)

    const chosen = await call({
      method: 'POST',
      url: SIGNUP,
      payload: {
        type: 'APPLE',
        username: '  Chosen One ',
        appleFirstName: 'Not',
        appleLastName: 'Used',
        appleIdentityToken: await token(appleKey, clock.now(), appleClaims(unique('chosen'))),
      },
    })
    t.equal(chosen.json().username, 'Chosen One', 'username wins over the first and last name')

    const long = await call({
      method: 'POST',
      url: SIGNUP,
      payload: {
        type: 'APPLE',
        appleFirstName: 'A'.repeat(40),
        appleLastName: 'B'.repeat(40),
        appleIdentityToken: await token(appleKey, clock.now(), appleClaims(unique('long'))),
      },
    })
    t.equal(long.statusCode, 201)
    t.equal([...long.json().username].length, 50, 'a long given name is cut to 50 characters')
  })

  t.test('Apple: foreign, expired, forged and unsigned tokens are refused', async (t) => {
    const now = clock.now()
    const seconds = Math.floor(now / 1000)
    const sub = unique('refused')
    const impostor = impostorKey
    const publicPem = await exportSPKI(appleKey.publicKey)
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
    const cases: Array<[string, string]> = [
      ['wrong audience', await token(appleKey, now, appleClaims(sub, { aud: 'com.other.game' }))],
      ['wrong issuer', await token(appleKey, now, appleClaims(sub, { iss: 'https://evil.example' }))],
      ['expired beyond the leeway', await token(appleKey, now, appleClaims(sub, { exp: seconds - 61 }))],
      ['no expiry', await token(appleKey, now, appleClaims(sub, { exp: null }))],
      ['no subject', await token(appleKey, now, appleClaims(sub, { sub: null }))],
      ['bad signature', await token(impostor, now, appleClaims(sub))],
      ['alg none', `${b64({ alg: 'none', kid: appleKey.kid })}.${b64({ ...appleClaims(sub), exp: seconds + 600 })}.`],
      [
        'HS256 with the public key as secret',
        await new SignJWT({ ...appleClaims(sub), exp: seconds + 600 })
          .setProtectedHeader({ alg: 'HS256', kid: appleKey.kid })
          .sign(new TextEncoder().encode(publicPem)),
      ],
      ['not a JWT', 'not-a-token'],
    ]
    for (const [name, appleIdentityToken] of cases) {
      for (const url of [SIGNIN, SIGNUP]) {
        const res = await call({ method: 'POST', url, payload: { type: 'APPLE', appleIdentityToken } })
        t.test(`${name} (${url})`, async (t) => {
          assertFailure(t, res, 401, 'INVALID_APPLE_TOKEN', 'INVALID_CREDENTIALS')
        })
      }
    }
    const users = await ctx.app.db.selectFrom('user_identities').select('subject').where('subject', '=', sub).execute()
    t.same(users, [], 'nobody was created')

    const withinLeeway = await call({
      method: 'POST',
      url: SIGNIN,
      payload: {
        type: 'APPLE',
        appleIdentityToken: await token(appleKey, now, appleClaims(sub, { exp: seconds - 30 })),
      },
    })
    t.equal(withinLeeway.statusCode, 201, 'expired 30 s ago is inside the 60 s leeway')
  })

  t.test('a missing token or code is a 400 that names the field', async (t) => {
    const apple = assertFailure(
      t,
      await call({ method: 'POST', url: SIGNIN, payload: { type: 'APPLE', appleIdentityToken: '' } }),
      400,
      'VALIDATION_ERROR',
      'INVALID_CREDENTIALS',
    )
    t.match(apple.details, [{ path: '/appleIdentityToken' }])
    const google = assertFailure(
      t,
      await call({ method: 'POST', url: SIGNUP, payload: { type: 'GOOGLE' } }),
      400,
      'VALIDATION_ERROR',
      'INVALID_CREDENTIALS',
    )
    t.match(google.details, [{ path: '/googleAuthorizationCode' }])
    assertError(
      t,
      await call({
        method: 'POST',
        url: SIGNIN,
        payload: { type: 'GOOGLE', googleAuthorizationCode: 'x'.repeat(2001) },
      }),
      400,
      'VALIDATION_ERROR',
    )
  })

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

  t.test('an e-mail that belongs to another account is never linked: 409', async (t) => {
    const address = `${unique('owner')}@example.org`
    const owner = await call({
      method: 'POST',
      url: SIGNUP,
      payload: { type: 'EMAIL', email: address, password: 'password123' },
    })
    t.equal(owner.statusCode, 201)
    const apple = assertFailure(
      t,
      await call({
        method: 'POST',
        url: SIGNUP,
        payload: {
          type: 'APPLE',
          appleIdentityToken: await token(
            appleKey,
            clock.now(),
            appleClaims(unique('a'), { email: address.toUpperCase() }),
          ),
        },
      }),
      409,
      'APPLE_EMAIL_CONFLICT',
      'APPLE_EMAIL_CONFLICT',
    )
    t.equal(apple.message, 'Email already registered with a different authentication method')
    const google = assertFailure(
      t,
      await call({
        method: 'POST',
        url: SIGNIN,
        payload: {
          type: 'GOOGLE',
          googleAuthorizationCode: await googleCode(
            googleClaims(unique('g'), { email: address, email_verified: true }),
          ),
        },
      }),
      409,
      'USER_ALREADY_EXISTS',
      'USER_ALREADY_EXISTS',
    )
    t.equal(google.message, 'Email already registered with a different authentication method')
    const holders = await ctx.app.db.selectFrom('users').select('id').where('email_key', '=', address).execute()
    t.same(
      holders.map((h) => h.id),
      [owner.json().userId],
      'only the e-mail account has the address',
    )
    const bound = await ctx.app.db
      .selectFrom('user_identities')
      .select('user_id')
      .where('user_id', '=', owner.json().userId)
      .execute()
    t.same(bound, [], 'and no provider was linked to it')
  })

  t.test('two sign-ins for a new subject at once make one user', async (t) => {
    const sub = unique('race')
    const idToken = await token(appleKey, clock.now(), appleClaims(sub, { email: `${sub}@example.org` }))
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        call({ method: 'POST', url: i % 2 ? SIGNUP : SIGNIN, payload: { type: 'APPLE', appleIdentityToken: idToken } }),
      ),
    )
    const statuses = results.map((r) => r.statusCode).sort()
    t.same(statuses, [200, 200, 200, 200, 200, 201], 'one created, the others found it')
    t.equal(new Set(results.map((r) => r.json().userId)).size, 1, 'all the same user')
    const rows = await ctx.app.db.selectFrom('user_identities').select('user_id').where('subject', '=', sub).execute()
    t.equal(rows.length, 1)
    const users = await ctx.app.db
      .selectFrom('users')
      .select('id')
      .where('email_key', '=', `${sub}@example.org`)
      .execute()
    t.equal(users.length, 1, 'exactly one user')

    const gsub = unique('grace')
    const codes = await Promise.all([googleCode(googleClaims(gsub)), googleCode(googleClaims(gsub))])
    const google = await Promise.all(
      codes.map((code) =>
        call({ method: 'POST', url: SIGNIN, payload: { type: 'GOOGLE', googleAuthorizationCode: code } }),
      ),
    )
    t.same(google.map((r) => r.statusCode).sort(), [200, 201])
    t.equal(google[0]!.json().userId, google[1]!.json().userId)
  })

  t.test('the admin user detail shows linked providers; deleting the user frees the subject', async (t) => {
    const sub = unique('deleted')
    const first = await call({
      method: 'POST',
      url: SIGNIN,
      payload: { type: 'APPLE', appleIdentityToken: await token(appleKey, clock.now(), appleClaims(sub)) },
    })
    const userId = first.json().userId
    const detail = await ctx.admin({ method: 'GET', url: `/users/${userId}` })
    t.equal(detail.statusCode, 200)
    t.match(detail.json().linkedProviders, [
      { provider: 'apple', subject: sub, email: null, isPrivateRelayEmail: false },
    ])
    t.equal(detail.json().linkedProviders.length, 1)
    const anonymous = await createUser(ctx)
    const plain = await ctx.admin({ method: 'GET', url: `/users/${anonymous.userId}` })
    t.same(plain.json().linkedProviders, [], 'an anonymous user has none')
    const list = await ctx.admin({ method: 'GET', url: `/users?query=${userId}` })
    t.equal(list.json().items[0].linkedProviders[0].subject, sub, 'the search shows them too')

    t.equal((await ctx.admin({ method: 'DELETE', url: `/users/${userId}` })).statusCode, 200)
    const again = await call({
      method: 'POST',
      url: SIGNIN,
      payload: { type: 'APPLE', appleIdentityToken: await token(appleKey, clock.now(), appleClaims(sub)) },
    })
    t.equal(again.statusCode, 201, 'a new account for the freed subject')
    t.not(again.json().userId, userId)
  })

  t.test('a banned user signing in with Apple is refused', async (t) => {
    const sub = unique('banned')
    const idToken = await token(appleKey, clock.now(), appleClaims(sub))
    const first = await call({ method: 'POST', url: SIGNIN, payload: { type: 'APPLE', appleIdentityToken: idToken } })
    await ctx.admin({ method: 'POST', url: `/users/${first.json().userId}/ban`, payload: {} })
    assertError(
      t,
      await call({ method: 'POST', url: SIGNIN, payload: { type: 'APPLE', appleIdentityToken: idToken } }),
      403,
      'USER_BANNED',
    )
  })
})
