import t from 'tap'
import { assertError, buildTestApp, eachDialect, stopBackgroundWork } from '../../helpers/app.js'
import { randomUUID } from 'node:crypto'
import { createUser } from '../../fixtures/users.js'
import { createUser as addPlayer } from '../../../features/users/service.js'
import { auditRows } from '../../fixtures/operators.js'
import { appRead, createGame, storeExists } from '../../fixtures/games.js'
import { BYSTANDER } from '../../helpers/bystander.js'

// The server's games through the admin API (contract §14): create, list, read, rename and erase.

/** The games an admin list answered, but the bystander (test/helpers/bystander.ts), which SQLite apps hold. */
const listed = (response: { json(): any }): Array<Record<string, any>> =>
  response.json().items.filter((g: { id: string }) => g.id !== BYSTANDER)

eachDialect(t, async (t, dialect) => {
  t.test('a game is made with its database and first key, listed, renamed and erased whole', async (t) => {
    const ctx = await buildTestApp(t, dialect)
    await stopBackgroundWork(ctx.app)

    const before = await ctx.admin({ method: 'GET', url: '/games' })
    t.equal(before.statusCode, 200)
    t.same(
      listed(before).map((g) => [g.id, g.role]),
      [['default', 'owner']],
    )

    const created = await createGame(ctx, 'alpha', 'Alpha')
    t.equal(created.id, 'alpha')
    t.equal(created.name, 'Alpha')
    t.equal(created.createdAt, new Date(ctx.clock.now()).toISOString())
    t.match(created.key.key, /^opk_/)
    t.equal(created.key.prefix, created.key.key.slice(0, 8))
    t.equal(created.key.revokedAt, null)
    t.ok(await storeExists(ctx, 'alpha'), 'its database exists')
    t.equal((await appRead(ctx, created.key.key)).statusCode, 200, 'its first key opens the app API at once')

    // Each game's stats are read from its own database: one player in default, two in alpha.
    await createUser(ctx, {})
    const alphaDb = ctx.app.games.get('alpha')!.db
    for (const n of [1, 2]) {
      await addPlayer(alphaDb, {
        id: randomUUID(),
        username: `alpha-${n}`,
        is_anonymous: 1,
        anonymous_token_hash: null,
        created_at: ctx.clock.now(),
      })
    }
    const statsAnswer = await ctx.admin({ method: 'GET', url: '/games?stats=true' })
    const stats = listed(statsAnswer)
    t.same(
      stats.map((g) => [g.id, g.players, g.crashFreeRate]),
      [
        ['default', 1, null],
        ['alpha', 2, null],
      ],
    )
    t.type(stats[1]!.activeToday, 'number')
    t.equal(statsAnswer.json().nextCursor, null)

    assertError(
      t,
      await ctx.admin({ method: 'POST', url: '/games', payload: { id: 'alpha', name: 'Again' } }),
      409,
      'CONFLICT',
    )
    assertError(
      t,
      await ctx.admin({ method: 'POST', url: '/games', payload: { id: 'default', name: 'D' } }),
      409,
      'CONFLICT',
    )
    for (const id of ['Alpha', '-a', 'a_b', 'x'.repeat(33), '']) {
      assertError(
        t,
        await ctx.admin({ method: 'POST', url: '/games', payload: { id, name: 'N' } }),
        400,
        'VALIDATION_ERROR',
      )
    }
    assertError(
      t,
      await ctx.admin({ method: 'POST', url: '/games', payload: { id: 'b', name: '' } }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(
      t,
      await ctx.admin({ method: 'POST', url: '/games', payload: { id: 'b', name: 'B', extra: 1 } }),
      400,
      'VALIDATION_ERROR',
    )
    t.notOk(await storeExists(ctx, 'b'), 'a refused create makes no database')

    const renamed = await ctx.admin({ method: 'PATCH', url: '/games/alpha', payload: { name: 'Alpha (staging)' } })
    t.same(renamed.json(), { id: 'alpha', name: 'Alpha (staging)', createdAt: created.createdAt })
    t.same((await ctx.admin({ method: 'GET', url: '/games/alpha' })).json(), renamed.json())
    t.equal(listed(await ctx.admin({ method: 'GET', url: '/games' }))[1]!.name, 'Alpha (staging)')
    assertError(t, await ctx.admin({ method: 'GET', url: '/games/nope' }), 404, 'GAME_NOT_FOUND')
    assertError(
      t,
      await ctx.admin({ method: 'PATCH', url: '/games/nope', payload: { name: 'N' } }),
      404,
      'GAME_NOT_FOUND',
    )

    // Erasing asks for the id again; default is never erased.
    const noBody = assertError(t, await ctx.admin({ method: 'DELETE', url: '/games/alpha' }), 400, 'VALIDATION_ERROR')
    t.match(noBody.message, /confirm/)
    const noConfirm = assertError(
      t,
      await ctx.admin({ method: 'DELETE', url: '/games/alpha', payload: {} }),
      400,
      'VALIDATION_ERROR',
    )
    t.match(noConfirm.message, /"confirm": "alpha"/)
    assertError(
      t,
      await ctx.admin({ method: 'DELETE', url: '/games/alpha', payload: { confirm: 'default' } }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(
      t,
      await ctx.admin({ method: 'DELETE', url: '/games/default', payload: { confirm: 'default' } }),
      409,
      'CONFLICT',
    )
    assertError(
      t,
      await ctx.admin({ method: 'DELETE', url: '/games/nope', payload: { confirm: 'nope' } }),
      404,
      'GAME_NOT_FOUND',
    )
    t.ok(await storeExists(ctx, 'alpha'), 'nothing erased yet')

    const erased = await ctx.admin({ method: 'DELETE', url: '/games/alpha', payload: { confirm: 'alpha' } })
    t.equal(erased.statusCode, 204)
    t.equal(erased.body, '')
    t.notOk(await storeExists(ctx, 'alpha'), 'its database is gone')
    assertError(t, await ctx.admin({ method: 'GET', url: '/games/alpha' }), 404, 'GAME_NOT_FOUND')
    assertError(t, await ctx.admin({ method: 'GET', url: '/games/alpha/users' }), 404, 'GAME_NOT_FOUND')
    assertError(t, await appRead(ctx, created.key.key), 401, 'UNAUTHORIZED')
    t.same(
      listed(await ctx.admin({ method: 'GET', url: '/games' })).map((g) => g.id),
      ['default'],
    )

    // The id is free again: a new game of that id starts empty.
    const again = await createGame(ctx, 'alpha')
    const players = listed(await ctx.admin({ method: 'GET', url: '/games?stats=true' }))[1]!
    t.equal(players.players, 0, 'nothing of the erased game is left')
    t.equal((await appRead(ctx, again.key.key)).statusCode, 200)

    // Every write is in the server's audit log with the game it was for.
    const audit = (await auditRows(ctx)).map((row) => [row.action, row.status, row.game_id])
    t.same(audit, [
      ['POST /games', 201, 'default'],
      ['PATCH /games/:gameId', 200, 'alpha'],
      ['DELETE /games/:gameId', 204, 'alpha'],
      ['POST /games', 201, 'default'],
    ])
  })
})
