// Whose save it is: unknown, banned and deleted players, a foreign or forged session, no API key, and
// strict mode, where loads and saves need the player's own bearer.
import t from 'tap'
import { APP, assertError, buildTestApp, eachDialect } from '../../helpers/app.js'
import { UNKNOWN_USER, bearer, createUser } from '../../fixtures/users.js'
import { LOAD, godot, loadJson, saveJson, storedSave, unity } from '../../fixtures/cloud-save.js'

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  const { call, admin, app } = ctx
  const stored = (userId: string) => storedSave(ctx, userId)

  t.test('identity: unknown, banned, foreign session; load of an unknown user is found: false', async (t) => {
    const user = await createUser(ctx)
    const other = await createUser(ctx)
    assertError(t, await saveJson(ctx, { userId: UNKNOWN_USER, data: 'x' }), 404, 'USER_NOT_FOUND')
    const unknownLoad = await loadJson(ctx, UNKNOWN_USER)
    t.equal(unknownLoad.statusCode, 200)
    t.same(unknownLoad.json(), { found: false, data: null, saveData: null })
    t.equal(unknownLoad.headers['x-cloud-save-revision'], '0')
    t.same((await call({ method: 'GET', url: `${LOAD}?userId=${UNKNOWN_USER}` })).json(), {
      found: false,
      data: null,
      saveData: null,
    })
    const unknownBytes = await godot.loadBytes(ctx, UNKNOWN_USER)
    t.equal(unknownBytes.statusCode, 204)
    t.equal(unknownBytes.body, '')

    t.same((await godot.load(ctx, user)).json(), { found: false, data: null, saveData: null }, 'known user, no save')
    assertError(t, await loadJson(ctx, 'nope'), 400, 'VALIDATION_ERROR')
    assertError(t, await call({ method: 'GET', url: `${LOAD}?userId=nope` }), 400, 'VALIDATION_ERROR')
    assertError(t, await call({ method: 'GET', url: LOAD }), 400, 'VALIDATION_ERROR')
    assertError(
      t,
      await call({ method: 'POST', url: LOAD, headers: { 'content-type': 'application/json' } }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(
      t,
      await call({ method: 'POST', url: LOAD, headers: { 'content-type': 'application/json' }, payload: '{' }),
      400,
      'INVALID_JSON',
    )

    const foreign = { ...bearer(other) }
    assertError(t, await saveJson(ctx, { userId: user.userId, data: 'x' }, foreign), 403, 'SESSION_FORBIDDEN')
    assertError(
      t,
      await call({ method: 'POST', url: LOAD, headers: foreign, payload: { userId: user.userId } }),
      403,
      'SESSION_FORBIDDEN',
    )
    assertError(
      t,
      await call({ method: 'POST', url: LOAD, headers: foreign, payload: { userId: UNKNOWN_USER } }),
      403,
      'SESSION_FORBIDDEN',
    )
    const forged = { authorization: 'Bearer forged' }
    assertError(t, await saveJson(ctx, { userId: user.userId, data: 'x' }, forged), 401, 'SESSION_REQUIRED')
    assertError(
      t,
      await call({ method: 'GET', url: `${LOAD}?userId=${UNKNOWN_USER}`, headers: forged }),
      401,
      'SESSION_REQUIRED',
    )
    const noKey = await app.inject({ method: 'POST', url: `${APP}${LOAD}`, payload: { userId: user.userId } })
    assertError(t, noKey, 401, 'UNAUTHORIZED')

    t.equal((await godot.save(ctx, user, 'kept')).statusCode, 200)
    t.equal((await admin({ method: 'POST', url: `/users/${user.userId}/ban`, payload: {} })).statusCode, 200)
    assertError(t, await godot.save(ctx, user, 'x'), 403, 'USER_BANNED')
    assertError(t, await godot.load(ctx, user), 403, 'USER_BANNED')
    assertError(t, await godot.loadBytes(ctx, user.userId), 403, 'USER_BANNED')
    t.equal((await admin({ method: 'POST', url: `/users/${user.userId}/unban`, payload: {} })).statusCode, 200)
    t.equal((await godot.load(ctx, user)).json().data, 'kept')
    t.equal((await stored(user.userId))!.version, 1)
  })

  t.test('deleting the user erases the save', async (t) => {
    const user = await createUser(ctx)
    await godot.save(ctx, user, 'bye')
    t.equal((await admin({ method: 'DELETE', url: `/users/${user.userId}` })).statusCode, 200)
    t.equal(await stored(user.userId), undefined)
    t.same((await godot.load(ctx, user)).json(), { found: false, data: null, saveData: null })
  })
})

eachDialect(t, async (t, dialect) => {
  t.test("strict mode: loads and saves need the user's bearer", async (t) => {
    const ctx = await buildTestApp(t, dialect, { env: { AUTH_MODE: 'strict' } })
    const user = await createUser(ctx)
    assertError(t, await godot.save(ctx, user, 'x'), 401, 'SESSION_REQUIRED')
    assertError(t, await godot.load(ctx, user), 401, 'SESSION_REQUIRED')
    assertError(t, await loadJson(ctx, UNKNOWN_USER), 401, 'SESSION_REQUIRED')
    t.equal((await unity.save(ctx, user, 'x')).statusCode, 200)
    t.equal((await unity.load(ctx, user)).json().data, 'x')
  })
})
