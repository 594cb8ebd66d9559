import t from 'tap'
import {
  ADMIN_KEY,
  assertError,
  buildTestApp,
  eachDialect,
  freshDatabase,
  stopBackgroundWork,
} from '../../helpers/app.js'
import { auditRows } from '../../fixtures/operators.js'
import { appRead, createGame } from '../../fixtures/games.js'

// A game's app keys (contract §14): the secret shown once, revocation refused on every instance
// within a second, and a game never left without a live key.

eachDialect(t, async (t, dialect) => {
  t.test('keys are created with their secret once, listed without it, and revoked', async (t) => {
    const ctx = await buildTestApp(t, dialect)
    await stopBackgroundWork(ctx.app)
    const game = await createGame(ctx, 'beta')
    const first = game.key

    const made = await ctx.admin({ method: 'POST', url: '/games/beta/keys', payload: { label: 'Android 1.2' } })
    t.equal(made.statusCode, 201)
    const second = made.json()
    t.match(second, { label: 'Android 1.2', lastUsedAt: null, revokedAt: null })
    t.match(second.key, /^opk_.{30,}/)
    t.equal(second.prefix, second.key.slice(0, 8))
    t.not(second.key, first.key)
    t.equal((await appRead(ctx, second.key)).statusCode, 200, 'the new key opens the app API at once')

    const listed = await ctx.admin({ method: 'GET', url: '/games/beta/keys' })
    t.equal(listed.statusCode, 200)
    const body = listed.json()
    t.same(body.items.map((k: { id: string }) => k.id).sort(), [first.id, second.id].sort())
    t.equal(body.nextCursor, null)
    t.notMatch(listed.body, second.key, 'no secret in the list')
    t.notMatch(listed.body, first.key)
    t.notOk('key' in body.items[0])

    const revoked = await ctx.admin({ method: 'POST', url: `/games/beta/keys/${first.id}/revoke` })
    t.equal(revoked.statusCode, 200)
    t.equal(revoked.json().id, first.id)
    t.equal(revoked.json().revokedAt, new Date(ctx.clock.now()).toISOString())
    t.notOk('key' in revoked.json())
    assertError(t, await appRead(ctx, first.key), 401, 'UNAUTHORIZED')
    t.equal((await appRead(ctx, second.key)).statusCode, 200, 'the other key still works')
    const again = await ctx.admin({ method: 'POST', url: `/games/beta/keys/${first.id}/revoke` })
    t.same(again.json(), revoked.json(), 'revoking a revoked key answers it as it is')

    // The last live key stays.
    assertError(t, await ctx.admin({ method: 'POST', url: `/games/beta/keys/${second.id}/revoke` }), 409, 'CONFLICT')
    t.equal((await appRead(ctx, second.key)).statusCode, 200)
    assertError(t, await ctx.admin({ method: 'POST', url: '/games/beta/keys/nope/revoke' }), 404, 'KEY_NOT_FOUND')
    assertError(t, await ctx.admin({ method: 'GET', url: '/games/nope/keys' }), 404, 'GAME_NOT_FOUND')
    assertError(
      t,
      await ctx.admin({ method: 'POST', url: '/games/nope/keys', payload: { label: 'x' } }),
      404,
      'GAME_NOT_FOUND',
    )
    assertError(
      t,
      await ctx.admin({ method: 'POST', url: '/games/beta/keys', payload: { label: '' } }),
      400,
      'VALIDATION_ERROR',
    )

    // default keeps API_KEY besides its stored keys: its only stored key may go.
    const own = (await ctx.admin({ method: 'POST', url: '/games/default/keys', payload: { label: 'stored' } })).json()
    t.equal((await appRead(ctx, own.key)).statusCode, 200)
    t.equal((await ctx.admin({ method: 'POST', url: `/games/default/keys/${own.id}/revoke` })).statusCode, 200)
    assertError(t, await appRead(ctx, own.key), 401, 'UNAUTHORIZED')
    t.equal((await ctx.call({ method: 'GET', url: '/remote-config/all' })).statusCode, 200, 'API_KEY still works')

    const audit = (await auditRows(ctx)).filter((row) => row.action.includes('/keys'))
    t.same(
      audit.map((row) => [row.action, row.status, row.game_id]),
      [
        ['POST /games/:gameId/keys', 201, 'beta'],
        ['POST /games/:gameId/keys/:keyId/revoke', 200, 'beta'],
        ['POST /games/:gameId/keys/:keyId/revoke', 200, 'beta'],
        ['POST /games/:gameId/keys', 201, 'default'],
        ['POST /games/:gameId/keys/:keyId/revoke', 200, 'default'],
      ],
    )
    t.notMatch(JSON.stringify(await auditRows(ctx)), second.key, 'no secret in the audit log')
    const listedAudit = (await ctx.admin({ method: 'GET', url: '/audit?limit=100' })).json()
    t.equal(listedAudit.items[0].game, 'default', 'the audit list names the game')
    t.equal(listedAudit.items[2].game, 'beta')
  })

  t.test('two concurrent revokes of a game’s last two keys leave one live key', async (t) => {
    const ctx = await buildTestApp(t, dialect)
    await stopBackgroundWork(ctx.app)
    for (let round = 0; round < 3; round++) {
      const id = `race-${round}`
      const first = (await createGame(ctx, id)).key
      const second = (await ctx.admin({ method: 'POST', url: `/games/${id}/keys`, payload: { label: 'b' } })).json()
      const answers = await Promise.all(
        [first, second].map((key) => ctx.admin({ method: 'POST', url: `/games/${id}/keys/${key.id}/revoke` })),
      )
      t.same(answers.map((a) => a.statusCode).sort(), [200, 409], `round ${round}: one revoked, one refused`)
      const live = (await ctx.admin({ method: 'GET', url: `/games/${id}/keys` }))
        .json()
        .items.filter((k: { revokedAt: string | null }) => k.revokedAt === null)
      t.equal(live.length, 1)
      const works = await Promise.all([first, second].map((key) => appRead(ctx, key.key)))
      t.same(works.map((w) => w.statusCode).sort(), [200, 401])
    }
  })

  t.test('a key revoked through another instance is refused here within a second', async (t) => {
    const dbEnv = await freshDatabase(t, dialect)
    const one = await buildTestApp(t, dialect, { dbEnv })
    await stopBackgroundWork(one.app)
    const two = await buildTestApp(t, dialect, { dbEnv })
    await stopBackgroundWork(two.app, { watchGames: true })

    const game = await createGame(one, 'gamma')
    const spare = (await one.admin({ method: 'POST', url: '/games/gamma/keys', payload: { label: 'spare' } })).json()
    // The other instance learns of the game and its keys from the change counter, within a second too.
    const seen = await within(1000, async () => (await appRead(two, game.key.key)).statusCode === 200)
    t.ok(seen, 'the other instance serves the new game’s key within a second')
    t.equal(
      (await two.app.inject({ method: 'GET', url: '/api/v1/admin/games/gamma', headers: { 'x-admin-key': ADMIN_KEY } }))
        .statusCode,
      200,
    )

    const revoked = await one.admin({ method: 'POST', url: `/games/gamma/keys/${game.key.id}/revoke` })
    t.equal(revoked.statusCode, 200)
    const started = performance.now()
    const refused = await within(1000, async () => (await appRead(two, game.key.key)).statusCode === 401)
    t.ok(refused, `refused by the other instance after ${Math.round(performance.now() - started)} ms`)
    t.equal((await appRead(two, spare.key)).statusCode, 200, 'the game’s other key still works there')
  })
})

/** Polls `check` until it holds or `ms` have passed; whether it held. */
async function within(ms: number, check: () => Promise<boolean>): Promise<boolean> {
  const deadline = performance.now() + ms
  for (;;) {
    if (await check()) return true
    if (performance.now() > deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
