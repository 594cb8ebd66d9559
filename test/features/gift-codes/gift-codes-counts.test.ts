// A code's redemption count is exact: players racing for the last redemptions, one player redeeming
// at once ten times, two server instances on one database, a deleted player, and the admin list.
import t from 'tap'
import { assertError, buildTestApp, DIALECTS, eachDialect, freshDatabase, serverUrl } from '../../helpers/app.js'
import { createUser } from '../../fixtures/users.js'
import { buildGiftCodeApp, createGiftCode, redeemCode, validateCode } from '../../fixtures/gift-codes.js'

eachDialect(t, async (t, dialect) => {
  const { ctx, count } = await buildGiftCodeApp(t, dialect)
  const { admin } = ctx

  t.test('40 players race for 5 redemptions: exactly 5 succeed', async (t) => {
    await createGiftCode(ctx, { code: 'RACE-FIVE', maxRedemptions: 5, grants: ['star'] })
    const users = await Promise.all(Array.from({ length: 40 }, () => createUser(ctx)))
    const results = (await Promise.all(users.map((u, i) => redeemCode(ctx, u, 'race-five', i % 2 === 0)))).map((r) =>
      r.json(),
    )
    t.equal(results.filter((r) => r.success === true).length, 5)
    t.ok(results.filter((r) => !r.success).every((r) => r.reason === 'EXHAUSTED'))
    t.equal(await count('RACE-FIVE'), 5)
    const rows = (await admin({ method: 'GET', url: '/gift-codes/RACE-FIVE/redemptions?limit=100' })).json().items
    t.equal(rows.length, 5)
    t.ok(rows.every((r: any) => r.grantedUnlocks[0] === 'star'))
  })

  t.test('one player fires 10 redeems at once: exactly 1 succeeds', async (t) => {
    await createGiftCode(ctx, { code: 'RACE-ONE', maxRedemptions: 100 })
    const user = await createUser(ctx)
    const results = (
      await Promise.all(Array.from({ length: 10 }, (_, i) => redeemCode(ctx, user, 'RACE-ONE', i % 2 === 0)))
    ).map((r) => r.json())
    t.equal(results.filter((r) => r.success === true).length, 1)
    t.ok(results.filter((r) => !r.success).every((r) => r.reason === 'ALREADY_REDEEMED'))
    t.equal(await count('RACE-ONE'), 1)
  })

  t.test('deleting a user erases their redemptions; the count stays', async (t) => {
    await createGiftCode(ctx, { code: 'GONE-USER', maxRedemptions: 1 })
    const user = await createUser(ctx)
    t.equal((await redeemCode(ctx, user, 'GONE-USER')).json().success, true)
    t.equal((await admin({ method: 'DELETE', url: `/users/${user.userId}` })).statusCode, 200)
    const rows = await ctx.app.db
      .selectFrom('gift_code_redemptions')
      .select('user_id')
      .where('user_id', '=', user.userId)
      .execute()
    t.same(rows, [])
    t.equal(await count('GONE-USER'), 1, 'the redemption happened: the code stays exhausted')
    t.same((await validateCode(ctx, await createUser(ctx), 'GONE-USER')).json(), { valid: false, reason: 'EXHAUSTED' })
  })

  t.test('admin list: newest first, redemption counts, cursor pages', async (t) => {
    const page1 = (await admin({ method: 'GET', url: '/gift-codes?limit=2' })).json()
    t.equal(page1.items.length, 2)
    t.type(page1.nextCursor, 'string')
    const page2 = (await admin({ method: 'GET', url: `/gift-codes?limit=2&cursor=${page1.nextCursor}` })).json()
    t.notSame(page2.items[0].id, page1.items[0].id)
    const race = (await admin({ method: 'GET', url: '/gift-codes?prefix=race-five' })).json()
    t.match(race.items, [{ code: 'RACE-FIVE', redemptionCount: 5, maxRedemptions: 5, status: 'EXHAUSTED' }])
    assertError(t, await admin({ method: 'GET', url: '/gift-codes?cursor=garbage' }), 400, 'VALIDATION_ERROR')
    assertError(t, await admin({ method: 'GET', url: '/gift-codes?limit=101' }), 400, 'VALIDATION_ERROR')
    assertError(t, await admin({ method: 'GET', url: '/gift-codes?prefix=a%25' }), 400, 'VALIDATION_ERROR')
    assertError(t, await admin({ method: 'GET', url: '/gift-codes/NOT-THERE' }), 404, 'NOT_FOUND')
    assertError(t, await admin({ method: 'GET', url: '/gift-codes/NOT-THERE/redemptions' }), 404, 'NOT_FOUND')
    const pages = await admin({ method: 'GET', url: '/gift-codes/RACE-FIVE/redemptions?limit=3' })
    const next = (
      await admin({ method: 'GET', url: `/gift-codes/RACE-FIVE/redemptions?limit=3&cursor=${pages.json().nextCursor}` })
    ).json()
    t.equal(pages.json().items.length + next.items.length, 5)
    t.equal(next.nextCursor, null)
  })
})

// Two instances share a database server (an embedded SQLite file is one server): each server engine.
for (const dialect of DIALECTS.filter((name) => name !== 'sqlite')) {
  const skip = serverUrl(dialect) ? false : `no ${dialect} test server is set: the two-instance leg did not run`
  t.test(`two server instances on one ${dialect} database, requests split between them`, { skip }, async (t) => {
    const dbEnv = await freshDatabase(t, dialect)
    const a = await buildTestApp(t, dialect, { dbEnv })
    const b = await buildTestApp(t, dialect, { dbEnv })
    await createGiftCode(a, { code: 'TWO-NODES', maxRedemptions: 5 })
    await createGiftCode(b, { code: 'TWO-NODES-ONE', maxRedemptions: 100 })
    const users = await Promise.all(Array.from({ length: 40 }, (_, i) => createUser(i % 2 ? a : b)))
    const many = await Promise.all(users.map((u, i) => redeemCode(i % 2 ? b : a, u, 'two-nodes')))
    t.equal(many.filter((r) => r.json().success === true).length, 5, 'exactly 5 of 40')
    t.ok(
      many
        .filter((r) => r.json().success === false)
        .every((r) => r.json().reason === 'EXHAUSTED' && !r.body.includes('giftData')),
    )
    const one = users[0]
    const repeated = await Promise.all(
      Array.from({ length: 10 }, (_, i) => redeemCode(i % 2 ? a : b, one, 'TWO-NODES-ONE')),
    )
    t.equal(repeated.filter((r) => r.json().success === true).length, 1, 'exactly 1 of 10')
    const counts = await Promise.all(
      ['TWO-NODES', 'TWO-NODES-ONE'].map(
        async (code) => (await b.admin({ method: 'GET', url: `/gift-codes/${code}` })).json().redemptionCount,
      ),
    )
    t.same(counts, [5, 1])
  })
}
