// Bad input that used to be stored wrong (issue 20): text with an unpaired surrogate is
// refused wherever it comes in, and UUIDs in any case name the same thing, stored and answered in
// lower case, on both databases.
import tap from 'tap'
import { assertError, buildTestApp, eachDialect } from '../../helpers/app.js'
import { bearer, createUser } from '../../fixtures/users.js'
import { createBoard, submit } from '../../fixtures/leaderboard.js'
import { CREATE } from '../../fixtures/crash-reporting.js'
import { feedback } from '../../fixtures/live-ops.js'

const JSON_TYPE = { 'content-type': 'application/json' }

eachDialect(tap, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  const { app, call, admin } = ctx
  const count = async (table: 'users' | 'cloud_saves' | 'crash_reports' | 'remote_configs') =>
    Number(
      (
        await app.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    )

  t.test('an unpaired surrogate is 400 VALIDATION_ERROR with details, and nothing is stored', async (t) => {
    const user = await createUser(ctx)
    const refused = async (response: Awaited<ReturnType<typeof call>>, path: string) => {
      const body = assertError(t, response, 400, 'VALIDATION_ERROR')
      t.same(
        body.details,
        [{ path, message: (body.details as Array<{ message: string }>)[0]?.message }],
        `details name ${path}`,
      )
      t.match(body.message, /Unicode/)
    }
    // JSON.stringify spells a lone surrogate as an escape, as a client's serializer would.
    const users = await count('users')
    await refused(
      await call({
        method: 'POST',
        url: '/user-management/signup',
        headers: JSON_TYPE,
        payload: JSON.stringify({ username: '\ud800x' }),
      }),
      '/username',
    )
    await refused(
      await call({
        method: 'POST',
        url: '/user-management/signup',
        headers: JSON_TYPE,
        payload: JSON.stringify({ displayName: 'x\udc00' }),
      }),
      '/displayName',
    )
    // Also as an object key, even one the schema would drop.
    await refused(
      await call({
        method: 'POST',
        url: '/user-management/signup',
        headers: JSON_TYPE,
        payload: '{"username":"ok","\\udbff":1}',
      }),
      '/',
    )
    t.equal(await count('users'), users, 'no user was created')

    await refused(
      await call({
        method: 'POST',
        url: '/cloud-save/save',
        headers: JSON_TYPE,
        payload: JSON.stringify({ userId: user.userId, saveData: '{"a":"\udc00"}' }),
      }),
      '/saveData',
    )
    t.equal(await count('cloud_saves'), 0, 'no save was stored')

    await refused(
      await call({
        method: 'POST',
        url: CREATE,
        headers: JSON_TYPE,
        payload: JSON.stringify({
          type: 'CRASH',
          message: 'boom',
          breadcrumbs: [{ message: 'ok' }, { message: 'a\ud83d' }],
        }),
      }),
      '/breadcrumbs/1/message',
    )
    t.equal(await count('crash_reports'), 0, 'no crash report was stored')

    await refused(
      await admin({
        method: 'PUT',
        url: '/remote-config/motd',
        headers: JSON_TYPE,
        payload: JSON.stringify({ value: '\ud800' }),
      }),
      '/value',
    )
    t.equal(await count('remote_configs'), 0, 'no config value was stored')

    // In a path or query, a surrogate can only come percent-encoded, which is not UTF-8: refused in
    // a path; in a query string it stays the literal text (never a surrogate) and fails the format.
    const path = assertError(t, await admin({ method: 'GET', url: '/users/%ED%A0%80x' }), 400, 'VALIDATION_ERROR')
    t.same(path.details, [{ path: '/', message: 'must be valid percent-encoded UTF-8' }])
    const query = assertError(
      t,
      await call({ method: 'GET', url: '/cloud-save/load?userId=%ED%A0%80' }),
      400,
      'VALIDATION_ERROR',
    )
    t.same(query.details, [{ path: '/userId', message: 'must match format "uuid"' }])

    // A proper pair is fine.
    const emoji = await createUser(ctx, { username: 'Ace \ud83d\ude00' })
    t.equal(emoji.username, 'Ace 😀')
  })

  t.test('UUIDs in upper case name the same user, stored and answered in lower case', async (t) => {
    const user = await createUser(ctx)
    const UPPER = user.userId.toUpperCase()
    t.not(UPPER, user.userId)

    await createBoard(ctx, 'case-board')
    const submitted = await submit(ctx, 'case-board', UPPER, 42)
    t.equal(submitted.statusCode, 200, 'score submitted with the upper-case id')
    const entries = await app.db.selectFrom('leaderboard_entries').select('user_id').execute()
    t.same(
      entries.map((e) => e.user_id),
      [user.userId],
      'the score is stored under the lower-case id',
    )

    // Compat mode: the userId alone (no bearer), as the Godot SDK saves.
    const saved = await call({
      method: 'POST',
      url: '/cloud-save/save',
      headers: JSON_TYPE,
      payload: JSON.stringify({ userId: UPPER, saveData: 'hello' }),
    })
    t.equal(saved.statusCode, 200, 'saved with the upper-case id')
    const saves = await app.db.selectFrom('cloud_saves').select('user_id').where('user_id', '=', user.userId).execute()
    t.equal(saves.length, 1, 'the save is stored under the lower-case id')
    const loaded = await call({ method: 'GET', url: `/cloud-save/load?userId=${UPPER}` })
    t.equal(loaded.json().saveData, 'hello', 'loaded with the upper-case id')
    const loadedLower = await call({ method: 'GET', url: `/cloud-save/load?userId=${user.userId}` })
    t.equal(loadedLower.json().saveData, 'hello', 'and with the lower-case one')

    const profile = await call({ method: 'GET', url: `/player-profile?userId=${UPPER}`, headers: bearer(user) })
    t.equal(profile.statusCode, 200, 'the profile of the upper-case id is the session user’s own')
    t.equal(profile.json().userId, user.userId, 'answered in lower case')

    const checked = await call({
      method: 'POST',
      url: '/user-management/check-auth',
      payload: { userId: UPPER, sessionToken: user.accessToken },
    })
    t.equal(checked.json().userId, user.userId, 'check-auth answers the lower-case id')

    const viaAdmin = await admin({ method: 'GET', url: `/users/${UPPER}` })
    t.equal(viaAdmin.statusCode, 200, 'the admin API finds the user by the upper-case id')
    t.equal(viaAdmin.json().userId, user.userId)

    // An optional UUID (not the plain UuidSchema) is normalized too.
    t.equal((await feedback.unity(ctx, UPPER)).statusCode, 200)
    const stored = await app.db.selectFrom('user_feedback').select('user_id').execute()
    t.same(
      stored.map((f) => f.user_id),
      [user.userId],
      'feedback is stored under the lower-case id',
    )
  })
})
