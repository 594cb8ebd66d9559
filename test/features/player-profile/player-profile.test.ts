import t from 'tap'
import { assertError, buildTestApp, eachDialect } from '../../helpers/app.js'
import { bearer, createUser, UNKNOWN_USER } from '../../fixtures/users.js'
import { createCosmetic } from '../../fixtures/player-profile.js'
import { board, createBoard, submit } from '../../fixtures/leaderboard.js'
import { grantUnlocks } from '../../../features/player-profile/service.js'

const PROFILE = '/player-profile'

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect, { env: { PROFILE_MAX_UNLOCKS: '4' } })
  const { call, admin, clock } = ctx
  await createCosmetic(ctx, 'cat', 'avatar')
  await createCosmetic(ctx, 'dragon', 'avatar', true)
  await createCosmetic(ctx, 'gold', 'frame')
  await createCosmetic(ctx, 'b1', 'badge')
  await createCosmetic(ctx, 'b2', 'badge')
  await createCosmetic(ctx, 'b3', 'badge')
  await createCosmetic(ctx, 'b4', 'badge')
  await createCosmetic(ctx, 'champion', 'badge', true)
  const put = (user: { userId: string; accessToken: string }, body: object) =>
    call({ method: 'PUT', url: PROFILE, headers: bearer(user), payload: { userId: user.userId, ...body } })
  const get = (user: { userId: string; accessToken: string }) =>
    call({ method: 'GET', url: `${PROFILE}?userId=${user.userId}`, headers: bearer(user) })

  t.test('GET answers the whole document', async (t) => {
    const user = await createUser(ctx, { username: 'Ada' })
    const res = await get(user)
    t.equal(res.statusCode, 200)
    const doc = res.json()
    t.match(doc, {
      userId: user.userId,
      username: 'Ada',
      displayName: 'Ada',
      profile: { avatarId: null, frameId: null, badges: [] },
      unlocks: [],
      limits: { maxBadges: 3, maxUnlocks: 4 },
      customData: null,
    })
    t.same(
      doc.cosmetics.map((c: any) => c.id),
      ['b1', 'b2', 'b3', 'b4', 'cat', 'champion', 'dragon', 'gold'],
      'the catalog sorted by id',
    )
    t.same(
      doc.cosmetics.find((c: any) => c.id === 'dragon'),
      { id: 'dragon', type: 'avatar', locked: true, available: false },
    )
    t.same(
      doc.cosmetics.find((c: any) => c.id === 'cat'),
      { id: 'cat', type: 'avatar', locked: false, available: true },
    )
    t.type(doc.createdAt, 'string')
    assertError(t, await call({ method: 'GET', url: `${PROFILE}?userId=${user.userId}` }), 401, 'SESSION_REQUIRED')
    const other = await createUser(ctx)
    assertError(
      t,
      await call({ method: 'GET', url: `${PROFILE}?userId=${user.userId}`, headers: bearer(other) }),
      403,
      'SESSION_FORBIDDEN',
    )
    assertError(
      t,
      await call({ method: 'GET', url: `${PROFILE}?userId=nope`, headers: bearer(user) }),
      400,
      'VALIDATION_ERROR',
    )
  })

  t.test('PUT replaces the slots together; name and customData only when sent', async (t) => {
    const user = await createUser(ctx, { username: 'Bo' })
    clock.advance(1000)
    const res = await put(user, {
      avatarId: 'cat',
      frameId: 'gold',
      badges: ['b2', 'b1'],
      displayName: '  Bob ',
      customData: { level: 3 },
    })
    t.equal(res.statusCode, 200)
    t.match(res.json(), {
      username: 'Bob',
      displayName: 'Bob',
      profile: { avatarId: 'cat', frameId: 'gold', badges: ['b2', 'b1'] },
      customData: { level: 3 },
    })
    clock.advance(1000)
    const cleared = (await put(user, { avatarId: '', frameId: null })).json()
    t.same(cleared.profile, { avatarId: null, frameId: null, badges: [] }, 'missing, null and "" slots clear them')
    t.equal(cleared.username, 'Bob', 'the name stays')
    t.same(cleared.customData, { level: 3 }, 'customData stays')
    t.ok(Date.parse(cleared.updatedAt) > Date.parse(cleared.createdAt), 'updatedAt moves on')
    const admin1 = await admin({ method: 'GET', url: `/users/${user.userId}` })
    t.equal(admin1.json().username, 'Bob', 'renamed through the users service')
  })

  t.test('the five error codes in order, and nothing stored on failure', async (t) => {
    const user = await createUser(ctx, { username: 'Keep' })
    await put(user, { avatarId: 'cat', badges: ['b1'], customData: { a: 1 } })
    const cases: Array<[object, number, string]> = [
      [{ badges: ['b1', 'b2', 'b3', 'b4'], avatarId: 'NOPE' }, 400, 'INVALID_BADGES'],
      [{ badges: ['b1', 'b1'], avatarId: 'NOPE' }, 400, 'INVALID_BADGES'],
      [{ badges: ['b1'], avatarId: 'Cat' }, 400, 'INVALID_COSMETIC_ID'],
      [{ badges: [''] }, 400, 'INVALID_COSMETIC_ID'],
      [{ avatarId: 'ghost', frameId: 'dragon' }, 400, 'COSMETIC_NOT_FOUND'],
      [{ avatarId: 'gold', frameId: 'dragon' }, 400, 'COSMETIC_TYPE_MISMATCH'],
      [{ avatarId: 'dragon', badges: ['b1'] }, 403, 'COSMETIC_LOCKED'],
      [{ avatarId: 'cat', displayName: 'x'.repeat(51) }, 400, 'VALIDATION_ERROR'],
      [{ avatarId: 'cat', customData: { blob: 'z'.repeat(17000) } }, 400, 'VALIDATION_ERROR'],
      [{ avatarId: 'cat', customData: [1, 2] }, 400, 'VALIDATION_ERROR'],
      [{ avatarId: 7 }, 400, 'VALIDATION_ERROR'],
      [{ badges: 'b1' }, 400, 'VALIDATION_ERROR'],
    ]
    for (const [body, status, code] of cases)
      assertError(t, await put(user, { ...body, displayName: (body as any).displayName ?? 'Changed' }), status, code)
    assertError(
      t,
      await call({
        method: 'PUT',
        url: PROFILE,
        headers: { ...bearer(user), 'content-type': 'application/json' },
        payload: '{"userId":',
      }),
      400,
      'INVALID_JSON',
    )
    const doc = (await get(user)).json()
    t.same(doc.profile, { avatarId: 'cat', frameId: null, badges: ['b1'] }, 'profile unchanged')
    t.equal(doc.username, 'Keep', 'name unchanged')
    t.same(doc.customData, { a: 1 })
  })

  t.test('a locked badge is refused until the operator grants it, then shown on the leaderboard', async (t) => {
    const user = await createUser(ctx)
    assertError(t, await put(user, { badges: ['champion'] }), 403, 'COSMETIC_LOCKED')
    const grant = await admin({ method: 'POST', url: `/users/${user.userId}/unlocks`, payload: { ids: ['champion'] } })
    t.equal(grant.statusCode, 200)
    t.same(grant.json(), { userId: user.userId, unlocks: ['champion'], maxUnlocks: 4, granted: ['champion'] })
    const again = await admin({
      method: 'POST',
      url: `/users/${user.userId}/unlocks`,
      payload: { ids: ['champion', 'dragon'] },
    })
    t.same(again.json().granted, ['dragon'], 'owned ids are not granted twice')
    const res = await put(user, { avatarId: 'dragon', badges: ['champion'] })
    t.equal(res.statusCode, 200)
    t.same(res.json().unlocks, ['champion', 'dragon'])
    t.equal(res.json().cosmetics.find((c: any) => c.id === 'champion').available, true)
    await createBoard(ctx, 'badge board')
    await submit(ctx, 'badge board', user.userId, 42)
    const entry = (await call({ method: 'GET', url: `${board('badge board')}/top` })).json().entries[0]
    t.same(entry.profile, { avatarId: 'dragon', frameId: null, badges: ['champion'] })
    const around = (await call({ method: 'GET', url: `${board('badge board')}/around?userId=${user.userId}` })).json()
    t.same(around.entries[0].profile.badges, ['champion'])
    const rank = (await call({ method: 'GET', url: `${board('badge board')}/rank?userId=${user.userId}` })).json()
    t.same(rank.profile.badges, ['champion'])

    const back = await admin({ method: 'DELETE', url: `/users/${user.userId}/unlocks/champion` })
    t.same(back.json().unlocks, ['dragon'])
    t.same((await get(user)).json().profile.badges, [], 'a taken-back locked badge leaves the profile')
    assertError(t, await admin({ method: 'DELETE', url: `/users/${user.userId}/unlocks/champion` }), 404, 'NOT_FOUND')
  })

  t.test('grants respect maxUnlocks, also under concurrency, and check their ids', async (t) => {
    const user = await createUser(ctx)
    const grant = (ids: string[]) => admin({ method: 'POST', url: `/users/${user.userId}/unlocks`, payload: { ids } })
    t.equal((await grant(['b1', 'b2', 'b3'])).statusCode, 200)
    const over = await grant(['b4', 'cat'])
    assertError(t, over, 409, 'UNLOCK_LIMIT_REACHED')
    t.same(
      (await admin({ method: 'GET', url: `/users/${user.userId}/unlocks` })).json().unlocks,
      ['b1', 'b2', 'b3'],
      'nothing granted',
    )
    assertError(t, await grant(['ghost']), 400, 'COSMETIC_NOT_FOUND')
    assertError(t, await grant(['Bad Id']), 400, 'VALIDATION_ERROR')
    assertError(t, await grant([]), 400, 'VALIDATION_ERROR')
    assertError(
      t,
      await admin({ method: 'POST', url: `/users/${UNKNOWN_USER}/unlocks`, payload: { ids: ['b1'] } }),
      404,
      'USER_NOT_FOUND',
    )

    const racer = await createUser(ctx)
    const ids = ['b1', 'b2', 'b3', 'b4', 'cat', 'gold', 'dragon', 'champion']
    const results = await Promise.allSettled(
      ids.map((id) => grantUnlocks(ctx.app.db, racer.userId, [id], 4, clock.now())),
    )
    t.equal(results.filter((r) => r.status === 'fulfilled').length, 4, 'exactly the limit granted')
    t.ok(
      results
        .filter((r) => r.status === 'rejected')
        .every((r) => (r as PromiseRejectedResult).reason.code === 'UNLOCK_LIMIT_REACHED'),
      'the rest refused with UNLOCK_LIMIT_REACHED',
    )
    const same = await Promise.all(
      Array.from({ length: 10 }, () => grantUnlocks(ctx.app.db, user.userId, ['cat', 'b1'], 5, clock.now())),
    )
    t.equal(same.flat().length, 1, 'a concurrent grant of one id lands once')
    t.same((await admin({ method: 'GET', url: `/users/${racer.userId}/unlocks` })).json().unlocks.length, 4)
  })

  t.test('the catalog: admin list, update and delete (unlocks and slots go with it)', async (t) => {
    const list = await admin({ method: 'GET', url: '/cosmetics?limit=3' })
    t.equal(list.statusCode, 200)
    t.equal(list.json().items.length, 3)
    const rest = await admin({ method: 'GET', url: `/cosmetics?limit=100&cursor=${list.json().nextCursor}` })
    t.ok(rest.json().items.length >= 5)
    t.equal(rest.json().nextCursor, null)
    const updated = await admin({
      method: 'PUT',
      url: '/cosmetics/gold',
      payload: { type: 'frame', name: 'Gold frame', locked: false },
    })
    t.match(updated.json(), { id: 'gold', type: 'frame', name: 'Gold frame', locked: false })
    assertError(
      t,
      await admin({ method: 'PUT', url: '/cosmetics/Gold', payload: { type: 'frame', name: 'x' } }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(
      t,
      await admin({ method: 'PUT', url: '/cosmetics/hat', payload: { type: 'hat', name: 'x' } }),
      400,
      'VALIDATION_ERROR',
    )

    await createCosmetic(ctx, 'temp-badge', 'badge', true)
    await createCosmetic(ctx, 'temp.avatar', 'avatar')
    const user = await createUser(ctx)
    await admin({ method: 'POST', url: `/users/${user.userId}/unlocks`, payload: { ids: ['temp-badge'] } })
    await put(user, { avatarId: 'temp.avatar', badges: ['b1', 'temp-badge'] })
    t.same((await admin({ method: 'DELETE', url: '/cosmetics/temp-badge' })).json(), {
      id: 'temp-badge',
      deleted: true,
    })
    t.same((await admin({ method: 'DELETE', url: '/cosmetics/temp.avatar' })).json(), {
      id: 'temp.avatar',
      deleted: true,
    })
    const doc = (await get(user)).json()
    t.same(doc.profile, { avatarId: null, frameId: null, badges: ['b1'] })
    t.same(doc.unlocks, [])
    assertError(t, await admin({ method: 'DELETE', url: '/cosmetics/temp-badge' }), 404, 'NOT_FOUND')
    t.equal(
      (
        await admin({
          method: 'POST',
          url: `/users/${user.userId}/unlocks`,
          payload: { ids: ['b1', 'b2', 'b3', 'b4'] },
        })
      ).statusCode,
      200,
      'the freed unlock counts again',
    )
  })
})
