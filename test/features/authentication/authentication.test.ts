import t from 'tap'
import { assertError, buildTestApp, eachDialect } from '../../helpers/app.js'
import { bearer, createUser } from '../../fixtures/users.js'

const SIGNUP = '/user-management/signup'
const SIGNIN = '/user-management/signin'
const AUTH_FIELDS = [
  'userId',
  'username',
  'displayName',
  'email',
  'isAnonymous',
  'isVerified',
  'anonymousToken',
  'accessToken',
  'expiresAt',
  'refreshToken',
  'refreshExpiresAt',
  'authStatus',
  'googleId',
  'appleUserId',
  'isPrivateRelayEmail',
  'message',
  'createdAt',
]
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  const { call, app, clock } = ctx

  t.test('anonymous signup as the Godot SDK sends it keeps the client token', async (t) => {
    const token = 'a'.repeat(16) + '0123456789abcdef'
    const res = await call({
      method: 'POST',
      url: SIGNUP,
      payload: { type: 'ANONYMOUS', anonymousToken: token, username: 'Hero' },
    })
    t.equal(res.statusCode, 201)
    const body = res.json()
    t.same(Object.keys(body).sort(), [...AUTH_FIELDS].sort(), 'every field of the auth response is present')
    t.match(body, {
      username: 'Hero',
      displayName: 'Hero',
      email: null,
      isAnonymous: true,
      isVerified: false,
      anonymousToken: token,
      refreshToken: null,
      refreshExpiresAt: null,
      authStatus: 'AUTHENTICATED',
      googleId: null,
      appleUserId: null,
      isPrivateRelayEmail: false,
      message: null,
    })
    t.match(body.userId, /^[0-9a-f-]{36}$/)
    t.match(body.expiresAt, ISO_MS)
    t.match(body.createdAt, ISO_MS)
    t.equal(Date.parse(body.expiresAt) - clock.now(), 30 * 24 * 3600 * 1000, 'SESSION_TTL_SECONDS default')
    t.notMatch(res.body, /": /, 'compact JSON')
  })

  t.test('without a token the server issues one of exactly 32 characters', async (t) => {
    const res = await call({ method: 'POST', url: SIGNUP, payload: {} })
    t.equal(res.statusCode, 201)
    const { anonymousToken, username } = res.json()
    t.match(anonymousToken, /^[A-Za-z0-9_-]{32}$/)
    t.match(username, /^Player-\d{4}$/, 'a generated name')
    const again = await call({ method: 'POST', url: SIGNIN, payload: { anonymousToken } })
    t.equal(again.statusCode, 200)
    t.equal(again.json().userId, res.json().userId)
    t.equal(again.json().anonymousToken, anonymousToken)
  })

  t.test('an empty JSON body and "" or null optionals count as absent', async (t) => {
    const empty = await call({
      method: 'POST',
      url: SIGNUP,
      headers: { 'content-type': 'application/json' },
      payload: '',
    })
    t.equal(empty.statusCode, 201)
    const blanks = await call({
      method: 'POST',
      url: SIGNUP,
      payload: { type: null, username: '', displayName: null, anonymousToken: '', includeRefreshToken: null },
    })
    t.equal(blanks.statusCode, 201)
    t.match(blanks.json().anonymousToken, /^[A-Za-z0-9_-]{32}$/)
  })

  t.test('names: trimmed, username wins over displayName, 1-50 characters, no control characters', async (t) => {
    const trimmed = await call({ method: 'POST', url: SIGNUP, payload: { displayName: '  Ada  ' } })
    t.equal(trimmed.json().username, 'Ada')
    const both = await call({ method: 'POST', url: SIGNUP, payload: { displayName: 'Self', username: 'Hosted' } })
    t.equal(both.json().username, 'Hosted')
    const fifty = await call({ method: 'POST', url: SIGNUP, payload: { username: 'é'.repeat(50) } })
    t.equal(fifty.statusCode, 201, '50 characters (100 bytes) is fine')
    assertError(
      t,
      await call({ method: 'POST', url: SIGNUP, payload: { username: 'x'.repeat(51) } }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(t, await call({ method: 'POST', url: SIGNUP, payload: { username: '   ' } }), 400, 'VALIDATION_ERROR')
    assertError(
      t,
      await call({ method: 'POST', url: SIGNUP, payload: { username: 'a\u0007b' } }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(t, await call({ method: 'POST', url: SIGNUP, payload: { username: 42 } }), 400, 'VALIDATION_ERROR')
  })

  t.test('bad input is 400 in the shared shape and stores nothing', async (t) => {
    const before = await app.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    const cases: Array<[unknown, string]> = [
      [{ type: 'FACEBOOK' }, 'VALIDATION_ERROR'],
      [{ anonymousToken: 'short' }, 'VALIDATION_ERROR'],
      [{ anonymousToken: 'has spaces in it!' }, 'VALIDATION_ERROR'],
      [{ anonymousToken: 'x'.repeat(65) }, 'VALIDATION_ERROR'],
      [{ includeRefreshToken: 'true' }, 'VALIDATION_ERROR'],
      [{ anonymousToken: 12345678 }, 'VALIDATION_ERROR'],
      [[1, 2], 'VALIDATION_ERROR'],
    ]
    for (const [payload, code] of cases) {
      const body = assertError(t, await call({ method: 'POST', url: SIGNUP, payload: payload as object }), 400, code)
      t.ok(Array.isArray(body.details), `details for ${JSON.stringify(payload)}`)
    }
    assertError(
      t,
      await call({ method: 'POST', url: SIGNUP, headers: { 'content-type': 'application/json' }, payload: '{"type":' }),
      400,
      'INVALID_JSON',
    )
    assertError(
      t,
      await call({
        method: 'POST',
        url: SIGNUP,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ username: 'x'.repeat(2_000_000) }),
      }),
      413,
      'PAYLOAD_TOO_LARGE',
    )
    const after = await app.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    t.equal(Number(after.n), Number(before.n), 'no user was created')
  })

  t.test('social sign-up on a server not configured for it is a 400 naming the provider', async (t) => {
    for (const [type, code] of [
      ['GOOGLE', 'GOOGLE_NOT_CONFIGURED'],
      ['APPLE', 'APPLE_NOT_CONFIGURED'],
    ]) {
      const body = assertError(
        t,
        await call({
          method: 'POST',
          url: SIGNUP,
          payload: {
            type,
            googleAuthorizationCode: 'x',
            appleIdentityToken: 'y',
            email: 'a@b.c',
            password: 'password1',
          },
        }),
        400,
        code!,
      )
      t.match(body.message, /not configured/)
      t.equal(body.authStatus, code)
      t.notOk('userId' in body, 'no userId key')
    }
  })

  t.test('a client token already in use is 409, also when two sign-ups race for it', async (t) => {
    const token = 'race-token-0123456789'
    const results = await Promise.all(
      Array.from({ length: 8 }, () => call({ method: 'POST', url: SIGNUP, payload: { anonymousToken: token } })),
    )
    const codes = results.map((r) => r.statusCode).sort()
    t.same(codes, [201, 409, 409, 409, 409, 409, 409, 409])
    assertError(
      t,
      results.find((r) => r.statusCode === 409)!,
      409,
      'CONFLICT',
    )
    assertError(t, await call({ method: 'POST', url: SIGNUP, payload: { anonymousToken: token } }), 409, 'CONFLICT')
  })

  t.test('signin with an unknown anonymous token is 404 with authStatus', async (t) => {
    const body = assertError(
      t,
      await call({ method: 'POST', url: SIGNIN, payload: { type: 'ANONYMOUS', anonymousToken: 'never-issued-token' } }),
      404,
      'USER_NOT_FOUND',
    )
    t.equal(body.authStatus, 'USER_NOT_FOUND')
    assertError(t, await call({ method: 'POST', url: SIGNIN, payload: {} }), 400, 'VALIDATION_ERROR')
    assertError(t, await call({ method: 'POST', url: SIGNIN, payload: { anonymousToken: 5 } }), 400, 'VALIDATION_ERROR')
  })

  t.test('several sessions at once, each a new access token', async (t) => {
    const user = await createUser(ctx)
    const second = (
      await call({ method: 'POST', url: SIGNIN, payload: { anonymousToken: user.anonymousToken } })
    ).json()
    t.not(second.accessToken, user.accessToken)
    for (const session of [user, second]) {
      const res = await call({
        method: 'POST',
        url: '/user-management/check-auth',
        payload: { userId: user.userId },
        headers: bearer(session),
      })
      t.equal(res.json().authStatus, 'AUTHENTICATED')
    }
  })

  t.test(
    'a refresh answers the anonymous token only when it comes along (the server keeps only its hash)',
    async (t) => {
      const user = await createUser(ctx, { includeRefreshToken: true })
      const bare = await call({ method: 'POST', url: SIGNIN, payload: { refreshToken: user.refreshToken } })
      t.equal(bare.statusCode, 200)
      t.equal(bare.json().anonymousToken, null, 'not recoverable from its hash')
      const withToken = await call({
        method: 'POST',
        url: SIGNIN,
        payload: { refreshToken: bare.json().refreshToken, anonymousToken: user.anonymousToken },
      })
      t.equal(withToken.statusCode, 200)
      t.equal(withToken.json().anonymousToken, user.anonymousToken, 'as a sign-in with it answers it')
      const other = await createUser(ctx)
      const foreign = await call({
        method: 'POST',
        url: SIGNIN,
        payload: { refreshToken: withToken.json().refreshToken, anonymousToken: other.anonymousToken },
      })
      t.equal(foreign.statusCode, 200)
      t.equal(foreign.json().userId, user.userId, 'the refresh token decides the user')
      t.equal(foreign.json().anonymousToken, null, "another user's token is never echoed")
      const stored = await ctx.app.db
        .selectFrom('users')
        .select('anonymous_token_hash')
        .where('id', '=', user.userId)
        .executeTakeFirstOrThrow()
      t.not(stored.anonymous_token_hash, user.anonymousToken, 'still stored only hashed')
    },
  )

  t.test('refresh tokens rotate; a replayed one revokes the family', async (t) => {
    const user = await createUser(ctx, { includeRefreshToken: true })
    t.type(user.refreshToken, 'string')
    const first = await call({ method: 'POST', url: SIGNIN, payload: { refreshToken: user.refreshToken } })
    t.equal(first.statusCode, 200)
    const renewed = first.json()
    t.equal(renewed.userId, user.userId)
    t.type(renewed.refreshToken, 'string')
    t.not(renewed.refreshToken, user.refreshToken, 'a new refresh token')
    t.match(renewed.refreshExpiresAt, ISO_MS)
    const check = (token: string) =>
      call({
        method: 'POST',
        url: '/user-management/check-auth',
        payload: { userId: user.userId, sessionToken: token },
      })
    t.equal((await check(user.accessToken)).json().authStatus, 'INVALID_TOKEN', 'the renewed session is retired')
    t.equal((await check(renewed.accessToken)).json().authStatus, 'AUTHENTICATED')

    const replay = await call({ method: 'POST', url: SIGNIN, payload: { refreshToken: user.refreshToken } })
    assertError(t, replay, 401, 'SESSION_REQUIRED')
    t.equal((await check(renewed.accessToken)).json().authStatus, 'INVALID_TOKEN', 'the family is revoked')
    assertError(
      t,
      await call({ method: 'POST', url: SIGNIN, payload: { refreshToken: renewed.refreshToken } }),
      401,
      'SESSION_REQUIRED',
    )

    const other = await createUser(ctx)
    t.equal(
      (await check(other.accessToken)).json().authStatus,
      'INVALID_TOKEN',
      "another user's token is not this user's",
    )
    const otherCheck = await call({
      method: 'POST',
      url: '/user-management/check-auth',
      payload: { userId: other.userId, sessionToken: other.accessToken },
    })
    t.equal(otherCheck.json().authStatus, 'AUTHENTICATED', 'other families are untouched')
  })

  t.test('concurrent uses of one refresh token: one renewal at most', async (t) => {
    const user = await createUser(ctx, { includeRefreshToken: true })
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        call({ method: 'POST', url: SIGNIN, payload: { refreshToken: user.refreshToken } }),
      ),
    )
    t.ok(results.filter((r) => r.statusCode === 200).length <= 1, 'never two successors')
    t.ok(
      results.every((r) => r.statusCode === 200 || r.statusCode === 401),
      `only 200 or 401: ${results.map((r) => r.statusCode)}`,
    )
  })

  t.test('an expired refresh token is refused', async (t) => {
    const user = await createUser(ctx, { includeRefreshToken: true })
    clock.advance(181 * 24 * 3600 * 1000)
    assertError(
      t,
      await call({ method: 'POST', url: SIGNIN, payload: { refreshToken: user.refreshToken } }),
      401,
      'SESSION_REQUIRED',
    )
    assertError(
      t,
      await call({ method: 'POST', url: SIGNIN, payload: { refreshToken: 'made-up' } }),
      401,
      'SESSION_REQUIRED',
    )
  })

  t.test('tokens are stored only as digests', async (t) => {
    const user = await createUser(ctx, { includeRefreshToken: true, anonymousToken: 'my-client-token-xyz' })
    const sessions = await app.db.selectFrom('sessions').selectAll().where('user_id', '=', user.userId).execute()
    const users = await app.db.selectFrom('users').selectAll().where('id', '=', user.userId).execute()
    const stored = JSON.stringify([sessions, users])
    for (const secret of [user.accessToken, user.refreshToken!, user.anonymousToken]) {
      t.notOk(stored.includes(secret), 'a token is not in the table in clear')
    }
    t.match(sessions[0]!.access_hash, /^[0-9a-f]{64}$/)
  })

  t.test('a banned user cannot sign in, by token or by refresh', async (t) => {
    const user = await createUser(ctx, { includeRefreshToken: true })
    t.equal((await ctx.admin({ method: 'POST', url: `/users/${user.userId}/ban`, payload: {} })).statusCode, 200)
    assertError(
      t,
      await call({ method: 'POST', url: SIGNIN, payload: { anonymousToken: user.anonymousToken } }),
      403,
      'USER_BANNED',
    )
    assertError(
      t,
      await call({ method: 'POST', url: SIGNIN, payload: { refreshToken: user.refreshToken } }),
      403,
      'USER_BANNED',
    )
    t.equal((await ctx.admin({ method: 'POST', url: `/users/${user.userId}/unban` })).statusCode, 200)
    t.equal(
      (await call({ method: 'POST', url: SIGNIN, payload: { refreshToken: user.refreshToken } })).statusCode,
      200,
      'the refresh token survived the refused attempt',
    )
  })
})
