// What the operator does to a board: validatedOnly boards, board bans that hide an entry, the entries
// list with metadata, removing an entry, resetting and deleting a board.
import t from 'tap'
import { assertError, buildTestApp, eachDialect } from '../../helpers/app.js'
import { UNKNOWN_USER, createUser } from '../../fixtures/users.js'
import { board, createBoard, submit } from '../../fixtures/leaderboard.js'
import { submitScore } from '../../../features/leaderboard/service.js'

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  const { call, admin, clock } = ctx

  t.test('validatedOnly boards and board bans', async (t) => {
    const [user, other] = [await createUser(ctx), await createUser(ctx)]
    await createBoard(ctx, 'ranked', { validatedOnly: true })
    assertError(t, await submit(ctx, 'ranked', user.userId, 5), 403, 'VALIDATED_SUBMIT_REQUIRED')
    const validated = await submitScore(ctx.app.db, ctx.app.events, {
      boardKey: 'ranked',
      userId: user.userId,
      score: 5,
      validated: true,
      now: clock.now(),
    })
    t.match(validated, { leaderboardKey: 'ranked', score: 5, improved: true, position: 1 })

    await createBoard(ctx, 'banland')
    await submit(ctx, 'banland', user.userId, 100)
    await submit(ctx, 'banland', other.userId, 50)
    const ban = await admin({
      method: 'PUT',
      url: `${board('banland')}/bans/${user.userId}`,
      payload: { reason: 'cheating' },
    })
    t.equal(ban.statusCode, 200)
    t.match(ban.json(), { leaderboardKey: 'banland', userId: user.userId, banned: true, reason: 'cheating' })
    assertError(t, await submit(ctx, 'banland', user.userId, 200), 403, 'PLAYER_BANNED')
    const top = (await call({ method: 'GET', url: `${board('banland')}/top` })).json()
    t.same(
      top.entries.map((e: any) => [e.userId, e.position]),
      [[other.userId, 1]],
      'the banned entry is hidden',
    )
    t.equal(top.total, 1)
    t.match((await call({ method: 'GET', url: `${board('banland')}/rank?userId=${user.userId}` })).json(), {
      ranked: false,
      position: 0,
    })
    const listed = (await admin({ method: 'GET', url: `${board('banland')}/entries` })).json().items
    t.same(
      listed.map((e: any) => [e.position, e.hidden]),
      [
        [1, false],
        [null, true],
      ],
      'the operator sees the hidden entry',
    )
    t.match((await admin({ method: 'DELETE', url: `${board('banland')}/bans/${user.userId}` })).json(), {
      banned: false,
    })
    t.equal(
      (await call({ method: 'GET', url: `${board('banland')}/rank?userId=${user.userId}` })).json().position,
      1,
      'shown again after the ban',
    )
    assertError(t, await admin({ method: 'DELETE', url: `${board('banland')}/bans/${user.userId}` }), 404, 'NOT_FOUND')
    assertError(
      t,
      await admin({ method: 'PUT', url: `${board('banland')}/bans/${UNKNOWN_USER}`, payload: {} }),
      404,
      'USER_NOT_FOUND',
    )
  })

  t.test(
    'metadata is kept for the operator when the score changes; entries removed, boards reset and deleted',
    async (t) => {
      const [user, other] = [await createUser(ctx), await createUser(ctx)]
      await createBoard(ctx, 'meta board')
      await submit(ctx, 'meta board', user.userId, 10, { metadata: 'level=3' })
      await submit(ctx, 'meta board', user.userId, 5, { metadata: { ignored: true } })
      await submit(ctx, 'meta board', other.userId, 7, { metadata: { weapon: 'bow' } })
      const items = (await admin({ method: 'GET', url: `${board('meta board')}/entries?limit=1` })).json()
      t.match(items.items[0], { position: 1, userId: user.userId, score: 10, metadata: 'level=3', hidden: false })
      const next = (
        await admin({ method: 'GET', url: `${board('meta board')}/entries?limit=1&cursor=${items.nextCursor}` })
      ).json()
      t.match(next.items[0], { position: 2, userId: other.userId, metadata: { weapon: 'bow' } })
      t.equal(next.nextCursor, null)
      t.notOk(
        'metadata' in (await call({ method: 'GET', url: `${board('meta board')}/top` })).json().entries[0],
        'clients never see metadata',
      )
      assertError(
        t,
        await admin({ method: 'GET', url: `${board('meta board')}/entries?cursor=bogus` }),
        400,
        'VALIDATION_ERROR',
      )

      t.same((await admin({ method: 'DELETE', url: `${board('meta board')}/entries/${user.userId}` })).json(), {
        leaderboardKey: 'meta board',
        userId: user.userId,
        deleted: true,
      })
      t.match((await call({ method: 'GET', url: `${board('meta board')}/rank?userId=${other.userId}` })).json(), {
        position: 1,
        total: 1,
      })
      assertError(
        t,
        await admin({ method: 'DELETE', url: `${board('meta board')}/entries/${user.userId}` }),
        404,
        'NOT_FOUND',
      )

      const reset = await admin({ method: 'POST', url: `${board('meta board')}/reset` })
      t.equal(reset.statusCode, 200)
      t.equal(reset.json().scoreCount, 0)
      t.equal((await call({ method: 'GET', url: `${board('meta board')}/top` })).json().total, 0)
      t.same((await admin({ method: 'DELETE', url: board('meta board') })).json(), {
        leaderboardKey: 'meta board',
        deleted: true,
      })
      assertError(t, await admin({ method: 'DELETE', url: board('meta board') }), 404, 'LEADERBOARD_NOT_FOUND')
      assertError(
        t,
        await admin({ method: 'PUT', url: board('bad'), payload: { minScore: 10, maxScore: 5 } }),
        400,
        'VALIDATION_ERROR',
      )
      assertError(
        t,
        await admin({ method: 'PUT', url: board('bad'), payload: { sortOrder: 'up' } }),
        400,
        'VALIDATION_ERROR',
      )
      assertError(t, await call({ method: 'PUT', url: board('bad'), payload: {} }), 404, 'NOT_FOUND')
    },
  )
})
