import t from 'tap'
import { assertError, buildTestApp, eachDialect } from '../../helpers/app.js'
import { bearer, createUser, UNKNOWN_USER } from '../../fixtures/users.js'

/**
 * Validation comes before the session, so a bad body without a
 * session is 400 on every session-required and user-scoped route, and every VALIDATION_ERROR
 * carries `details`.
 */

eachDialect(t, async (t, dialect) => {
  // Strict mode: every user-scoped route needs a session too, so a 401 would show on all of them.
  const strict = await buildTestApp(t, dialect, { env: { AUTH_MODE: 'strict' } })
  const compat = await buildTestApp(t, dialect)

  t.test('a body that fails a check beyond its schema is 400 without a session, not 401', async (t) => {
    const user = await createUser(strict)
    const u = user.userId
    const cases: Array<[string, 'POST' | 'PUT', string, Record<string, unknown>, string]> = [
      [
        'change-name, a blank name',
        'POST',
        '/user-management/change-name',
        { userId: u, newName: '   ' },
        'VALIDATION_ERROR',
      ],
      ['profile, a blank displayName', 'PUT', '/player-profile', { userId: u, displayName: ' ' }, 'VALIDATION_ERROR'],
      [
        'profile, customData over 16 KiB',
        'PUT',
        '/player-profile',
        { userId: u, customData: { x: 'y'.repeat(17_000) } },
        'VALIDATION_ERROR',
      ],
      ['profile, a badge twice', 'PUT', '/player-profile', { userId: u, badges: ['b1', 'b1'] }, 'INVALID_BADGES'],
      [
        'profile, a malformed cosmetic id',
        'PUT',
        '/player-profile',
        { userId: u, avatarId: 'Not Valid' },
        'INVALID_COSMETIC_ID',
      ],
      ['cloud save without data', 'POST', '/cloud-save/save', { userId: u }, 'VALIDATION_ERROR'],
      ['cloud save, an empty save', 'POST', '/cloud-save/save', { userId: u, saveData: '' }, 'VALIDATION_ERROR'],
      [
        'submit, metadata over 2 KiB',
        'POST',
        '/leaderboard/submit',
        { userId: u, score: 1, metadata: 'm'.repeat(3000) },
        'VALIDATION_ERROR',
      ],
      [
        'hosted submit, metadata over 2 KiB',
        'POST',
        '/leaderboards/default/submit',
        { userId: u, score: 1, metadata: { m: 'm'.repeat(3000) } },
        'VALIDATION_ERROR',
      ],
      [
        'run start, initialState not base64',
        'POST',
        '/validated-actions/runs',
        { userId: u, context: { initialState: 'not base64!' } },
        'INITIAL_STATE_INVALID_ENCODING',
      ],
      [
        'run submit, an earned amount of 0',
        'POST',
        '/validated-actions/submit',
        { userId: u, ticket: 't', inputLogHash: 'a'.repeat(64), score: 1, earned: [{ key: 'gold', amount: 0 }] },
        'VALIDATION_ERROR',
      ],
      [
        'e-mail send, scheduled two years ahead',
        'POST',
        '/email-sending/send',
        { userId: u, templateSlug: 'x', language: 'en', scheduledAt: '2099-01-01T00:00:00Z' },
        'VALIDATION_ERROR',
      ],
    ]
    for (const [label, method, url, payload, code] of cases) {
      const without = await strict.call({ method, url, payload })
      const body = assertError(t, without, 400, code)
      t.notOk(without.headers['www-authenticate'], `${label}: no session challenge`)
      const withSession = await strict.call({ method, url, payload, headers: bearer(user) })
      t.same(withSession.json(), body, `${label}: the same answer with a session`)
    }
  })

  t.test('a good body without a session is still 401, and a bad one for an unknown user 400, not 404', async (t) => {
    const user = await createUser(strict)
    assertError(
      t,
      await strict.call({
        method: 'POST',
        url: '/user-management/change-name',
        payload: { userId: user.userId, newName: 'Fine' },
      }),
      401,
      'SESSION_REQUIRED',
    )
    assertError(
      t,
      await strict.call({ method: 'POST', url: '/cloud-save/save', payload: { userId: user.userId, data: 'x' } }),
      401,
      'SESSION_REQUIRED',
    )
    assertError(
      t,
      await compat.call({ method: 'POST', url: '/cloud-save/save', payload: { userId: UNKNOWN_USER } }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(
      t,
      await compat.call({
        method: 'POST',
        url: '/leaderboard/submit',
        payload: { userId: UNKNOWN_USER, score: 1, metadata: 'm'.repeat(3000) },
      }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(
      t,
      await compat.call({ method: 'POST', url: '/cloud-save/save', payload: { userId: UNKNOWN_USER, data: 'x' } }),
      404,
      'USER_NOT_FOUND',
    )
  })

  t.test('every VALIDATION_ERROR carries details: schema, hooks, services and the admin API', async (t) => {
    const user = await createUser(strict)
    const cases: Array<[string, Promise<{ statusCode: number; json(): any }>, string]> = [
      [
        'schema',
        strict.call({ method: 'POST', url: '/user-management/signup', payload: { includeRefreshToken: 'yes' } }),
        '/includeRefreshToken',
      ],
      [
        'sign-in without a token',
        strict.call({ method: 'POST', url: '/user-management/signin', payload: {} }),
        '/anonymousToken',
      ],
      [
        'e-mail sign-in without a password',
        strict.call({
          method: 'POST',
          url: '/user-management/signin',
          payload: { type: 'EMAIL', email: 'a@example.org' },
        }),
        '/password',
      ],
      [
        'a name blank after trimming',
        strict.call({
          method: 'POST',
          url: '/user-management/change-name',
          headers: bearer(user),
          payload: { userId: user.userId, newName: '  ' },
        }),
        '/newName',
      ],
      [
        'the user-scoped hook without userId',
        compat.call({ method: 'POST', url: '/__test/user-scoped', payload: {} }),
        '/userId',
      ],
      [
        'an admin cursor this server did not issue',
        strict.admin({ method: 'GET', url: '/users?cursor=bm90LWEtY3Vyc29y' }),
        '/cursor',
      ],
      [
        'an admin write checked by the service',
        strict.admin({ method: 'PUT', url: '/leaderboards/bounds', payload: { minScore: 10, maxScore: 1 } }),
        '/minScore',
      ],
    ]
    for (const [label, pending, path] of cases) {
      const res = await pending
      const body = assertError(t, res, 400, 'VALIDATION_ERROR')
      t.ok(Array.isArray(body.details) && (body.details as unknown[]).length > 0, `${label}: details`)
      const [first] = body.details as Array<{ path: string; message: string }>
      t.equal(first!.path, path, `${label}: the path`)
      t.type(first!.message, 'string')
    }
  })
})
