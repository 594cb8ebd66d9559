import t from 'tap'
import { assertError, buildTestApp, eachDialect } from '../../helpers/app.js'
import { bearer, createUser, UNKNOWN_USER } from '../../fixtures/users.js'

const CHECK = '/user-management/check-auth'
const RENAME = '/user-management/change-name'
const SIGNOUT = '/user-management/signout'

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  const { call, admin, clock } = ctx

  t.test('check-auth answers 200 with the status, as the Godot SDK sends it', async (t) => {
    const user = await createUser(ctx)
    const other = await createUser(ctx)
    const check = (payload: object, headers = {}) => call({ method: 'POST', url: CHECK, payload, headers })

    const ok = await check({ userId: user.userId, sessionToken: user.accessToken })
    t.equal(ok.statusCode, 200)
    t.same(ok.json(), {
      userId: user.userId,
      isAuthenticated: true,
      authStatus: 'AUTHENTICATED',
      message: 'Session is valid',
    })
    t.equal((await check({ userId: user.userId }, bearer(user))).json().authStatus, 'AUTHENTICATED', 'bearer form')
    t.same((await check({ userId: user.userId, sessionToken: 'nonsense' })).json(), {
      userId: user.userId,
      isAuthenticated: false,
      authStatus: 'INVALID_TOKEN',
      message: 'Session token is invalid',
    })
    t.equal((await check({ userId: user.userId })).json().authStatus, 'INVALID_TOKEN', 'no token at all')
    t.equal(
      (await check({ userId: user.userId, sessionToken: other.accessToken })).json().authStatus,
      'INVALID_TOKEN',
      "another user's token",
    )
    t.equal(
      (await check({ userId: UNKNOWN_USER, sessionToken: user.accessToken })).json().authStatus,
      'USER_NOT_FOUND',
      'user decided first',
    )
    assertError(t, await check({ userId: 'not-a-uuid', sessionToken: user.accessToken }), 400, 'VALIDATION_ERROR')
    assertError(t, await check({ sessionToken: user.accessToken }), 400, 'VALIDATION_ERROR')
    assertError(t, await check({ userId: 17 }), 400, 'VALIDATION_ERROR')

    clock.advance(31 * 24 * 3600 * 1000)
    t.equal((await check({ userId: user.userId, sessionToken: user.accessToken })).json().authStatus, 'TOKEN_EXPIRED')
  })

  t.test('change-name with the token in the body (hosted form) or as bearer', async (t) => {
    const user = await createUser(ctx, { username: 'Before' })
    const res = await call({
      method: 'POST',
      url: RENAME,
      payload: { userId: user.userId, sessionToken: user.accessToken, newName: '  After ' },
    })
    t.equal(res.statusCode, 200)
    t.same(res.json(), { isAuthenticated: true, authStatus: 'AUTHENTICATED', userId: user.userId, username: 'After' })
    const viaBearer = await call({
      method: 'POST',
      url: RENAME,
      headers: bearer(user),
      payload: { userId: user.userId, newName: 'Again' },
    })
    t.equal(viaBearer.json().username, 'Again')
    const stored = await admin({ method: 'GET', url: `/users/${user.userId}` })
    t.equal(stored.json().username, 'Again')
    t.equal(stored.json().displayName, 'Again')
  })

  t.test('change-name refuses missing, foreign and revoked sessions, and bad names', async (t) => {
    const user = await createUser(ctx, { username: 'Keep' })
    const other = await createUser(ctx)
    const missing = await call({ method: 'POST', url: RENAME, payload: { userId: user.userId, newName: 'X' } })
    assertError(t, missing, 401, 'SESSION_REQUIRED')
    t.equal(missing.headers['www-authenticate'], 'Bearer')
    assertError(
      t,
      await call({
        method: 'POST',
        url: RENAME,
        headers: bearer(other),
        payload: { userId: user.userId, newName: 'X' },
      }),
      403,
      'SESSION_FORBIDDEN',
    )
    assertError(
      t,
      await call({
        method: 'POST',
        url: RENAME,
        headers: { authorization: 'Bearer forged' },
        payload: { userId: user.userId, newName: 'X' },
      }),
      401,
      'SESSION_REQUIRED',
    )
    assertError(
      t,
      await call({
        method: 'POST',
        url: RENAME,
        headers: bearer(user),
        payload: { userId: user.userId, newName: 'x'.repeat(51) },
      }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(
      t,
      await call({ method: 'POST', url: RENAME, headers: bearer(user), payload: { userId: user.userId, newName: '' } }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(
      t,
      await call({ method: 'POST', url: RENAME, headers: bearer(user), payload: { userId: user.userId } }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(
      t,
      await call({
        method: 'POST',
        url: RENAME,
        headers: bearer(user),
        payload: { userId: user.userId, newName: ['a'] },
      }),
      400,
      'VALIDATION_ERROR',
    )
    t.equal((await admin({ method: 'GET', url: `/users/${user.userId}` })).json().username, 'Keep', 'nothing stored')
  })

  t.test('signout revokes only the presented session', async (t) => {
    const user = await createUser(ctx, { includeRefreshToken: true })
    const phone = (
      await call({ method: 'POST', url: '/user-management/signin', payload: { anonymousToken: user.anonymousToken } })
    ).json()
    const out = await call({ method: 'POST', url: SIGNOUT, headers: bearer(user), payload: { userId: user.userId } })
    t.equal(out.statusCode, 200)
    t.same(out.json(), { success: true })
    const again = await call({ method: 'POST', url: SIGNOUT, headers: bearer(user) })
    assertError(t, again, 401, 'SESSION_REQUIRED')
    t.match(again.json().message, /revoked/)
    assertError(
      t,
      await call({
        method: 'POST',
        url: RENAME,
        headers: bearer(user),
        payload: { userId: user.userId, newName: 'Nope' },
      }),
      401,
      'SESSION_REQUIRED',
    )
    assertError(
      t,
      await call({ method: 'POST', url: '/user-management/signin', payload: { refreshToken: user.refreshToken } }),
      401,
      'SESSION_REQUIRED',
    )
    t.equal(
      (
        await call({ method: 'POST', url: CHECK, payload: { userId: user.userId, sessionToken: phone.accessToken } })
      ).json().authStatus,
      'AUTHENTICATED',
      'the other device stays signed in',
    )
    const other = await createUser(ctx)
    assertError(
      t,
      await call({ method: 'POST', url: SIGNOUT, headers: bearer(phone), payload: { userId: other.userId } }),
      403,
      'SESSION_FORBIDDEN',
    )
  })

  t.test('an operator signs a user out on every device; their other data and other users stay', async (t) => {
    const user = await createUser(ctx, { includeRefreshToken: true })
    const phone = (
      await call({ method: 'POST', url: '/user-management/signin', payload: { anonymousToken: user.anonymousToken } })
    ).json()
    const bystander = await createUser(ctx)
    t.equal((await admin({ method: 'GET', url: `/users/${user.userId}` })).json().activeSessions, 2)

    const revoked = await admin({ method: 'POST', url: `/users/${user.userId}/revoke-sessions` })
    t.equal(revoked.statusCode, 200)
    t.match(revoked.json(), { userId: user.userId, activeSessions: 0, banned: false })
    for (const token of [user.accessToken, phone.accessToken]) {
      t.equal(
        (await call({ method: 'POST', url: CHECK, payload: { userId: user.userId, sessionToken: token } })).json()
          .authStatus,
        'INVALID_TOKEN',
        'each device is signed out',
      )
    }
    assertError(
      t,
      await call({ method: 'POST', url: '/user-management/signin', payload: { refreshToken: user.refreshToken } }),
      401,
      'SESSION_REQUIRED',
    )
    t.equal(
      (
        await call({ method: 'POST', url: CHECK, payload: { userId: bystander.userId }, headers: bearer(bystander) })
      ).json().authStatus,
      'AUTHENTICATED',
      "another user's session is untouched",
    )
    const back = await call({
      method: 'POST',
      url: '/user-management/signin',
      payload: { anonymousToken: user.anonymousToken },
    })
    t.equal(back.statusCode, 200, 'the player can sign in again')
    t.equal(
      (await admin({ method: 'POST', url: `/users/${user.userId}/revoke-sessions` })).statusCode,
      200,
      'idempotent',
    )
    assertError(
      t,
      await admin({ method: 'POST', url: `/users/${UNKNOWN_USER}/revoke-sessions` }),
      404,
      'USER_NOT_FOUND',
    )
  })

  t.test('a ban refuses every request and revokes nothing; unban restores', async (t) => {
    const user = await createUser(ctx)
    const banned = await admin({ method: 'POST', url: `/users/${user.userId}/ban`, payload: { reason: 'cheating' } })
    t.equal(banned.statusCode, 200)
    t.match(banned.json(), { userId: user.userId, banned: true, banReason: 'cheating' })
    assertError(
      t,
      await call({
        method: 'POST',
        url: RENAME,
        headers: bearer(user),
        payload: { userId: user.userId, newName: 'X' },
      }),
      403,
      'USER_BANNED',
    )
    assertError(
      t,
      await call({ method: 'POST', url: CHECK, headers: bearer(user), payload: { userId: user.userId } }),
      403,
      'USER_BANNED',
    )
    assertError(t, await call({ method: 'POST', url: SIGNOUT, headers: bearer(user) }), 403, 'USER_BANNED')
    const lifted = await admin({
      method: 'POST',
      url: `/users/${user.userId}/unban`,
      headers: { 'content-type': 'application/json' },
      payload: '',
    })
    t.equal(lifted.statusCode, 200)
    t.match(lifted.json(), { banned: false, bannedAt: null, banReason: null })
    t.equal(
      (
        await call({
          method: 'POST',
          url: RENAME,
          headers: bearer(user),
          payload: { userId: user.userId, newName: 'Back' },
        })
      ).statusCode,
      200,
    )
  })

  t.test('user-scoped routes (compat): userId alone, or a bearer that must match', async (t) => {
    const user = await createUser(ctx)
    const other = await createUser(ctx)
    const scoped = (payload: object, headers = {}) =>
      call({ method: 'POST', url: '/__test/user-scoped', payload, headers })
    t.same((await scoped({ userId: user.userId })).json(), { userId: user.userId, sessionId: null })
    t.equal((await scoped({ userId: user.userId }, bearer(user))).json().userId, user.userId)
    assertError(t, await scoped({ userId: user.userId }, bearer(other)), 403, 'SESSION_FORBIDDEN')
    assertError(t, await scoped({ userId: user.userId }, { authorization: 'Bearer nope' }), 401, 'SESSION_REQUIRED')
    assertError(t, await scoped({ userId: UNKNOWN_USER }), 404, 'USER_NOT_FOUND')
    await admin({ method: 'POST', url: `/users/${user.userId}/ban`, payload: {} })
    assertError(t, await scoped({ userId: user.userId }), 403, 'USER_BANNED')
  })

  t.test('admin: search, detail, pagination, delete with all data', async (t) => {
    const names = ['Zed_1', 'Zed%2', 'Zed_3']
    const created = []
    for (const username of names) {
      clock.advance(1000)
      created.push(await createUser(ctx, { username }))
    }
    const found = await admin({ method: 'GET', url: '/users?query=Zed' })
    t.equal(found.statusCode, 200)
    t.same(
      found.json().items.map((u: { username: string }) => u.username),
      ['Zed_3', 'Zed%2', 'Zed_1'],
      'newest first',
    )
    t.equal(found.json().nextCursor, null)
    const literal = await admin({ method: 'GET', url: `/users?query=${encodeURIComponent('d%2')}` })
    t.same(
      literal.json().items.map((u: { username: string }) => u.username),
      ['Zed%2'],
      '% is matched literally',
    )
    const byId = await admin({ method: 'GET', url: `/users?query=${created[0]!.userId}` })
    t.same(
      byId.json().items.map((u: { userId: string }) => u.userId),
      [created[0]!.userId],
    )

    const first = await admin({ method: 'GET', url: '/users?query=Zed&limit=2' })
    t.equal(first.json().items.length, 2)
    t.type(first.json().nextCursor, 'string')
    const second = await admin({ method: 'GET', url: `/users?query=Zed&limit=2&cursor=${first.json().nextCursor}` })
    t.same(
      second.json().items.map((u: { username: string }) => u.username),
      ['Zed_1'],
    )
    t.equal(second.json().nextCursor, null)
    assertError(t, await admin({ method: 'GET', url: '/users?limit=0' }), 400, 'VALIDATION_ERROR')
    assertError(t, await admin({ method: 'GET', url: '/users?limit=abc' }), 400, 'VALIDATION_ERROR')
    assertError(t, await admin({ method: 'GET', url: '/users?cursor=garbage' }), 400, 'VALIDATION_ERROR')

    const detail = await admin({ method: 'GET', url: `/users/${created[1]!.userId}` })
    t.match(detail.json(), {
      userId: created[1]!.userId,
      username: 'Zed%2',
      isAnonymous: true,
      banned: false,
      activeSessions: 1,
    })
    assertError(t, await admin({ method: 'GET', url: `/users/${UNKNOWN_USER}` }), 404, 'USER_NOT_FOUND')
    assertError(t, await admin({ method: 'GET', url: '/users/not-a-uuid' }), 400, 'VALIDATION_ERROR')
    assertError(
      t,
      await admin({ method: 'POST', url: `/users/${UNKNOWN_USER}/ban`, payload: {} }),
      404,
      'USER_NOT_FOUND',
    )

    const gone = created[2]!
    const deleted = await admin({
      method: 'DELETE',
      url: `/users/${gone.userId}`,
      headers: { 'content-type': 'application/json' },
    })
    t.equal(deleted.statusCode, 200)
    t.same(deleted.json(), { userId: gone.userId, deleted: true })
    const sessions = await ctx.app.db.selectFrom('sessions').select('id').where('user_id', '=', gone.userId).execute()
    t.equal(sessions.length, 0, 'sessions erased with the user')
    assertError(t, await admin({ method: 'DELETE', url: `/users/${gone.userId}` }), 404, 'USER_NOT_FOUND')
    assertError(
      t,
      await call({ method: 'POST', url: '/user-management/signin', payload: { anonymousToken: gone.anonymousToken } }),
      404,
      'USER_NOT_FOUND',
    )
  })
})
