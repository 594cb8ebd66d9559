/**
 * What holds for Apple and Google alike: a request without its token or code, an e-mail that belongs
 * to another account, sign-ins racing for a new subject, the admin view of linked providers, and a
 * banned player; against a local key server and a local Google token endpoint started on 127.0.0.1
 * with keys made in the test: nothing reaches the internet.
 */
import t from 'tap'
import { assertError, eachDialect } from '../../helpers/app.js'
import { createUser } from '../../fixtures/users.js'
import {
  SIGNIN,
  SIGNUP,
  appleClaims,
  appleKey,
  assertFailure,
  googleClaims,
  socialSetup,
  token,
  unique,
} from '../../helpers/social.js'

eachDialect(t, async (t, dialect) => {
  const { ctx, googleCode } = await socialSetup(t, dialect)
  const { call, clock } = ctx

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
