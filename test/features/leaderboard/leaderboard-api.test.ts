// The leaderboard's client routes: the board list, what submit, rank, top and around answer on both path
// families, and how they refuse unknown players, unknown or inactive boards and bad input.
import t from 'tap'
import { assertError, buildTestApp, eachDialect } from '../../helpers/app.js'
import { UNKNOWN_USER, bearer, createUser } from '../../fixtures/users.js'
import { board, createBoard, submit } from '../../fixtures/leaderboard.js'
import { createCosmetic } from '../../fixtures/player-profile.js'

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  const { call, admin } = ctx

  t.test('the default board exists and the list answers the compat fields', async (t) => {
    const res = await call({ method: 'GET', url: '/leaderboards' })
    t.equal(res.statusCode, 200)
    const body = res.json()
    const def = body.boards.find((b: any) => b.key === 'default')
    t.match(def, {
      key: 'default',
      boardKey: 'default',
      sortOrder: 'desc',
      updateStrategy: 'best',
      resetSchedule: 'none',
      validatedOnly: false,
      isActive: true,
      scoreCount: 0,
    })
    t.type(def.id, 'string')
    t.equal(body.totalElements, body.boards.length)
    assertError(t, await admin({ method: 'DELETE', url: '/leaderboards/default' }), 409, 'CONFLICT')
  })

  t.test('submit answers the stored score, keeps the best, and both path families work', async (t) => {
    const user = await createUser(ctx)
    const first = await call({
      method: 'POST',
      url: '/leaderboard/submit',
      payload: { userId: user.userId, score: 50 },
    })
    t.equal(first.statusCode, 200)
    t.match(first.json(), {
      success: true,
      leaderboardKey: 'default',
      score: 50,
      submittedScore: 50,
      improved: true,
      position: 1,
    })
    const lower = (
      await call({ method: 'POST', url: '/leaderboards/default/submit', payload: { userId: user.userId, score: 10 } })
    ).json()
    t.match(lower, { score: 50, submittedScore: 10, improved: false })
    const higher = (
      await call({
        method: 'POST',
        url: '/leaderboards/default/submit',
        headers: bearer(user),
        payload: { userId: user.userId, score: 70, leaderboardKey: 'nope' },
      })
    ).json()
    t.match(higher, { leaderboardKey: 'default', score: 70, improved: true }, 'the path wins over leaderboardKey')
    await createBoard(ctx, 'side')
    const side = (
      await call({
        method: 'POST',
        url: '/leaderboard/submit',
        payload: { userId: user.userId, score: 3, leaderboardKey: 'side' },
      })
    ).json()
    t.equal(side.leaderboardKey, 'side', 'self-hosted path with leaderboardKey')
    const rank = (
      await call({ method: 'GET', url: `/leaderboard/rank?userId=${user.userId}&leaderboardKey=side` })
    ).json()
    t.match(rank, { leaderboardKey: 'side', position: 1, score: 3, ranked: true })
    const top = (await call({ method: 'GET', url: `/leaderboard/top?userId=${user.userId}&limit=1` })).json()
    t.equal(top.leaderboardKey, 'default')
    t.equal(top.entries.length, 1)
    const around = (await call({ method: 'GET', url: `/leaderboard/around?userId=${user.userId}` })).json()
    t.equal(around.entries.length, 1)
  })

  t.test('players without an entry, unknown users, unknown and inactive boards', async (t) => {
    const user = await createUser(ctx)
    const rank = await call({ method: 'GET', url: `/leaderboard/rank?userId=${user.userId}` })
    t.equal(rank.statusCode, 200)
    t.match(rank.json(), { position: 0, score: 0, ranked: false, userId: user.userId, username: user.username })
    t.same(rank.json().profile, { avatarId: null, frameId: null, badges: [] })
    t.same((await call({ method: 'GET', url: `/leaderboard/around?userId=${user.userId}` })).json(), {
      leaderboardKey: 'default',
      entries: [],
    })
    assertError(
      t,
      await call({ method: 'GET', url: `/leaderboard/rank?userId=${UNKNOWN_USER}` }),
      404,
      'USER_NOT_FOUND',
    )
    assertError(
      t,
      await call({ method: 'GET', url: `/leaderboard/around?userId=${UNKNOWN_USER}` }),
      404,
      'USER_NOT_FOUND',
    )
    assertError(t, await call({ method: 'GET', url: `/leaderboards/nope/top` }), 404, 'LEADERBOARD_NOT_FOUND')
    assertError(t, await submit(ctx, 'nope', user.userId, 1), 404, 'LEADERBOARD_NOT_FOUND')
    assertError(t, await submit(ctx, 'default', UNKNOWN_USER, 1), 404, 'USER_NOT_FOUND')
    await createBoard(ctx, 'Case', { isActive: false })
    assertError(t, await submit(ctx, 'Case', user.userId, 1), 404, 'LEADERBOARD_NOT_FOUND')
    assertError(
      t,
      await call({ method: 'GET', url: `${board('Case')}/rank?userId=${user.userId}` }),
      404,
      'LEADERBOARD_NOT_FOUND',
    )
    t.notOk(
      (await call({ method: 'GET', url: '/leaderboards' })).json().boards.some((b: any) => b.key === 'Case'),
      'inactive boards are not listed',
    )
    t.equal(
      (await admin({ method: 'GET', url: '/leaderboards?limit=100' })).json().items.find((b: any) => b.key === 'Case')
        .isActive,
      false,
      'the operator still sees it',
    )
    await createBoard(ctx, 'case')
    t.equal((await submit(ctx, 'case', user.userId, 1)).statusCode, 200, 'keys are case-sensitive')
    await createBoard(ctx, 'Case', { isActive: true })
    t.equal(
      (await call({ method: 'GET', url: `${board('Case')}/top` })).json().total,
      0,
      "'Case' and 'case' are two boards",
    )
  })

  t.test('bad inputs are 400 in the shared shape and store nothing', async (t) => {
    const user = await createUser(ctx)
    await createBoard(ctx, 'strict')
    const bad: unknown[] = [
      { userId: user.userId, score: '5' },
      { userId: user.userId, score: 1.5 },
      { userId: user.userId },
      { score: 5 },
      { userId: 'not-a-uuid', score: 5 },
      { userId: user.userId, score: 2 ** 60 },
      { userId: user.userId, score: 5, metadata: 'x'.repeat(3000) },
      { userId: user.userId, score: 5, metadata: { blob: 'y'.repeat(2100) } },
      { userId: user.userId, score: 5, metadata: 7 },
    ]
    for (const payload of bad)
      assertError(
        t,
        await call({ method: 'POST', url: `${board('strict')}/submit`, payload: payload as object }),
        400,
        'VALIDATION_ERROR',
      )
    assertError(
      t,
      await call({
        method: 'POST',
        url: `${board('strict')}/submit`,
        headers: { 'content-type': 'application/json' },
        payload: '{"userId":',
      }),
      400,
      'INVALID_JSON',
    )
    assertError(
      t,
      await call({
        method: 'POST',
        url: `/leaderboards/${'k'.repeat(65)}/submit`,
        payload: { userId: user.userId, score: 1 },
      }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(t, await call({ method: 'GET', url: `${board('strict')}/top?limit=ten` }), 400, 'VALIDATION_ERROR')
    assertError(t, await call({ method: 'GET', url: `${board('strict')}/top?limit=1.5` }), 400, 'VALIDATION_ERROR')
    assertError(t, await call({ method: 'GET', url: `${board('strict')}/top?offset=-1` }), 400, 'VALIDATION_ERROR')
    assertError(
      t,
      await call({ method: 'GET', url: `${board('strict')}/around?userId=${user.userId}&range=2.5` }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(t, await call({ method: 'GET', url: `${board('strict')}/rank?userId=nope` }), 400, 'VALIDATION_ERROR')
    assertError(
      t,
      await call({ method: 'GET', url: `${board('strict')}/rank?userId=${user.userId}&period=last` }),
      400,
      'VALIDATION_ERROR',
    )
    t.equal((await call({ method: 'GET', url: `${board('strict')}/top` })).json().total, 0, 'nothing stored')
  })

  t.test("a submit's standing comes first: unknown player 404, banned player 403, before the board", async (t) => {
    const user = await createUser(ctx)
    const unknown = '00000000-0000-4000-8000-000000000000'
    assertError(t, await submit(ctx, 'no-such-board', unknown, 5), 404, 'USER_NOT_FOUND')
    assertError(t, await submit(ctx, 'no-such-board', user.userId, 5), 404, 'LEADERBOARD_NOT_FOUND')
    t.equal((await admin({ method: 'POST', url: `/users/${user.userId}/ban`, payload: {} })).statusCode, 200)
    assertError(t, await submit(ctx, 'no-such-board', user.userId, 5), 403, 'USER_BANNED')
  })

  t.test('a rename or a cosmetic change shows on the board at once', async (t) => {
    const user = await createUser(ctx, { username: 'Before' })
    await createBoard(ctx, 'live')
    await submit(ctx, 'live', user.userId, 10)
    await call({
      method: 'POST',
      url: '/user-management/change-name',
      headers: bearer(user),
      payload: { userId: user.userId, newName: 'After' },
    })
    await createCosmetic(ctx, 'live-avatar', 'avatar')
    await call({
      method: 'PUT',
      url: '/player-profile',
      headers: bearer(user),
      payload: { userId: user.userId, avatarId: 'live-avatar' },
    })
    const entry = (await call({ method: 'GET', url: `${board('live')}/top` })).json().entries[0]
    t.equal(entry.username, 'After')
    t.same(entry.profile, { avatarId: 'live-avatar', frameId: null, badges: [] })
  })
})
