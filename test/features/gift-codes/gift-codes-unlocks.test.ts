// Codes that grant cosmetics: a granted locked badge becomes usable, the unlock limit refuses the whole
// redemption, and a grant deleted from the catalog is skipped.
import t from 'tap'
import { assertError, eachDialect } from '../../helpers/app.js'
import { bearer, createUser } from '../../fixtures/users.js'
import { createCosmetic } from '../../fixtures/player-profile.js'
import { buildGiftCodeApp, createGiftCode, redeemCode, validateCode } from '../../fixtures/gift-codes.js'

eachDialect(t, async (t, dialect) => {
  const { ctx, count } = await buildGiftCodeApp(t, dialect)
  const { call, admin, clock } = ctx

  t.test(
    'a granted locked badge becomes usable in PUT /player-profile; owned unlocks are not granted twice',
    async (t) => {
      const user = await createUser(ctx)
      const put = () =>
        call({
          method: 'PUT',
          url: '/player-profile',
          headers: bearer(user),
          payload: { userId: user.userId, badges: ['champion'] },
        })
      assertError(t, await put(), 403, 'COSMETIC_LOCKED')
      await createGiftCode(ctx, { code: 'CHAMP', giftData: '{"title":"Champion"}', grants: ['champion'] })
      const res = await redeemCode(ctx, user, 'champ')
      t.same(res.json(), {
        success: true,
        message: 'Gift code redeemed successfully',
        giftData: '{"title":"Champion"}',
        grantedUnlocks: ['champion'],
      })
      const profile = await put()
      t.equal(profile.statusCode, 200)
      t.same(profile.json().profile.badges, ['champion'])
      t.same(profile.json().unlocks, ['champion'])

      await createGiftCode(ctx, { code: 'CHAMP-PLUS', grants: ['star', 'champion'] })
      t.same(
        (await redeemCode(ctx, user, 'CHAMP-PLUS')).json().grantedUnlocks,
        ['champion', 'star'],
        'the grants the player owns after the redemption, those owned before included',
      )
      const redemptions = (await admin({ method: 'GET', url: '/gift-codes/champ-plus/redemptions' })).json()
      t.same(redemptions, {
        items: [{ userId: user.userId, grantedUnlocks: ['star'], redeemedAt: new Date(clock.now()).toISOString() }],
        nextCursor: null,
      })
    },
  )

  t.test('UNLOCK_LIMIT_REACHED: 409 and nothing redeemed', async (t) => {
    const user = await createUser(ctx)
    const granted = await admin({
      method: 'POST',
      url: `/users/${user.userId}/unlocks`,
      payload: { ids: ['b1', 'b2'] },
    })
    t.equal(granted.statusCode, 200)
    await createGiftCode(ctx, { code: 'TOO-MUCH', grants: ['b3', 'star'], maxRedemptions: 2 })
    assertError(t, await redeemCode(ctx, user, 'TOO-MUCH'), 409, 'UNLOCK_LIMIT_REACHED')
    t.equal(await count('TOO-MUCH'), 0, 'the counter was rolled back')
    t.same((await admin({ method: 'GET', url: '/gift-codes/TOO-MUCH/redemptions' })).json().items, [])
    t.same(
      (await admin({ method: 'GET', url: `/users/${user.userId}/unlocks` })).json().unlocks,
      ['b1', 'b2'],
      'no unlock granted',
    )
    t.same(
      (await validateCode(ctx, user, 'TOO-MUCH')).json(),
      { valid: true },
      'the code stays redeemable for the player',
    )
    await admin({ method: 'DELETE', url: `/users/${user.userId}/unlocks/b2` })
    t.same(
      (await redeemCode(ctx, user, 'TOO-MUCH')).json().grantedUnlocks,
      ['b3', 'star'],
      'with room made, it goes through',
    )
  })

  t.test('a grant deleted from the catalog after the code was made is skipped', async (t) => {
    await createCosmetic(ctx, 'fleeting', 'badge', true)
    await createGiftCode(ctx, { code: 'FLEETING', grants: ['fleeting', 'b1'] })
    t.equal((await admin({ method: 'DELETE', url: '/cosmetics/fleeting' })).statusCode, 200)
    const user = await createUser(ctx)
    t.same((await redeemCode(ctx, user, 'FLEETING')).json().grantedUnlocks, ['b1'])
    await admin({ method: 'DELETE', url: '/cosmetics/b1' })
    const later = await createUser(ctx)
    const res = (await redeemCode(ctx, later, 'FLEETING')).json()
    t.same([res.success, res.grantedUnlocks], [true, []], 'nothing left to grant: the gift data alone')
    await createCosmetic(ctx, 'b1', 'badge', true)
  })
})
