/**
 * Sign in with Apple: the flows as each SDK sends them, the Services ID audience, names and private
 * relay addresses, and the tokens that are refused; against a local key server started on 127.0.0.1
 * with keys made in the test: nothing reaches the internet. Google: social-signin-google.test.ts; the
 * key cache and provider outages: social-keys.test.ts.
 */
import t from 'tap'
import { exportSPKI, SignJWT } from 'jose'
import { eachDialect } from '../../helpers/app.js'
import {
  SERVICE_ID,
  SIGNIN,
  SIGNUP,
  appleClaims,
  appleKey,
  assertFailure,
  impostorKey,
  socialSetup,
  token,
  unique,
  unityApple,
} from '../../helpers/social.js'

eachDialect(t, async (t, dialect) => {
  const { ctx } = await socialSetup(t, dialect)
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
})
