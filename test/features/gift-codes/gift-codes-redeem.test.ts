// Validating and redeeming a code as each SDK calls it: the success shape, every refusal reason with
// the contract's failure shape (200, no giftData), and the identity checks before any redemption.
import t, { type Test } from 'tap'
import { assertError, eachDialect } from '../../helpers/app.js'
import { UNKNOWN_USER, bearer, createUser } from '../../fixtures/users.js'
import { buildGiftCodeApp, createGiftCode, redeemCode, validateCode } from '../../fixtures/gift-codes.js'
import { normalizeCode, redeemGiftCode } from '../../../features/gift-codes/service.js'

const HOUR = 3_600_000

/** A failure as the contract has it: 200, no giftData key anywhere in the raw text. */
function assertRefused(t: Test, res: { statusCode: number; body: string; json(): any }, reason: string) {
  t.equal(res.statusCode, 200, `redeem refused with 200 (${reason})`)
  t.notMatch(res.body, /giftData/, 'the raw failure body has no giftData key')
  const body = res.json()
  t.same(Object.keys(body).sort(), ['grantedUnlocks', 'message', 'reason', 'success'])
  t.equal(body.success, false)
  t.equal(body.reason, reason)
  t.same(body.grantedUnlocks, [])
  t.type(body.message, 'string')
  return body
}

eachDialect(t, async (t, dialect) => {
  const { ctx, count } = await buildGiftCodeApp(t, dialect)
  const { call, admin, clock } = ctx

  t.test('redeem: the success shape, case-insensitive and trimmed, as each SDK calls it', async (t) => {
    await createGiftCode(ctx, { code: 'HELLO-WORLD', giftData: '{"coins":100}', maxRedemptions: 3 })
    const godot = await createUser(ctx)
    const check = await validateCode(ctx, godot, '  hello-world ')
    t.equal(check.statusCode, 200)
    t.equal(check.body, '{"valid":true}')
    const res = await redeemCode(ctx, godot, ' Hello-World', false)
    t.equal(res.statusCode, 200)
    t.same(res.json(), {
      success: true,
      message: 'Gift code redeemed successfully',
      giftData: '{"coins":100}',
      grantedUnlocks: [],
    })
    const unreal = await createUser(ctx)
    t.same((await validateCode(ctx, unreal, 'HELLO-WORLD', true)).json(), { valid: true })
    t.equal((await redeemCode(ctx, unreal, 'HELLO-WORLD', true)).json().success, true)
    t.equal(await count('hello-world'), 2)
    t.same((await validateCode(ctx, godot, 'HELLO-WORLD')).json(), { valid: false, reason: 'ALREADY_REDEEMED' })
  })

  t.test('NOT_FOUND: unknown and malformed codes, with the exact message', async (t) => {
    const user = await createUser(ctx)
    for (const typed of ['NO-SUCH-CODE', '', '   ', 'ab', '!!!!', 'A'.repeat(33), 'ıabc', 'straße', 'x'.repeat(256)]) {
      t.same(
        (await validateCode(ctx, user, typed)).json(),
        { valid: false, reason: 'NOT_FOUND' },
        JSON.stringify(typed.slice(0, 20)),
      )
      const res = await redeemCode(ctx, user, typed)
      assertRefused(t, res, 'NOT_FOUND')
      t.equal(res.body, '{"success":false,"message":"Gift code not found","reason":"NOT_FOUND","grantedUnlocks":[]}')
    }
    t.equal(normalizeCode('  abcd-1234\t'), 'ABCD-1234')
    t.equal(normalizeCode('ıabc'), undefined, 'a letter that upper-cases into ASCII is not a code character')
  })

  t.test('NOT_STARTED, then valid once the clock reaches startsAt', async (t) => {
    const user = await createUser(ctx)
    await createGiftCode(ctx, { code: 'LATER-1', startsAt: new Date(clock.now() + HOUR).toISOString() })
    t.same((await validateCode(ctx, user, 'later-1')).json(), { valid: false, reason: 'NOT_STARTED' })
    assertRefused(t, await redeemCode(ctx, user, 'later-1'), 'NOT_STARTED')
    t.equal((await admin({ method: 'GET', url: '/gift-codes/LATER-1' })).json().status, 'NOT_STARTED')
    clock.advance(HOUR)
    t.same((await validateCode(ctx, user, 'later-1')).json(), { valid: true }, 'startsAt itself is inside the window')
    t.equal((await redeemCode(ctx, user, 'later-1')).json().success, true)
  })

  t.test('EXPIRED at expiresAt', async (t) => {
    const user = await createUser(ctx)
    await createGiftCode(ctx, { code: 'SOON-GONE', expiresAt: new Date(clock.now() + HOUR).toISOString() })
    t.same((await validateCode(ctx, user, 'soon-gone')).json(), { valid: true })
    clock.advance(HOUR)
    t.same((await validateCode(ctx, user, 'soon-gone')).json(), { valid: false, reason: 'EXPIRED' })
    assertRefused(t, await redeemCode(ctx, user, 'soon-gone'), 'EXPIRED')
    t.equal(await count('SOON-GONE'), 0)
  })

  t.test('REVOKED, idempotently, and it wins over every other reason', async (t) => {
    const user = await createUser(ctx)
    await createGiftCode(ctx, { code: 'PULLED', maxRedemptions: 1 })
    t.equal((await redeemCode(ctx, user, 'PULLED')).json().success, true)
    const other = await createUser(ctx)
    t.same((await validateCode(ctx, other, 'pulled')).json(), { valid: false, reason: 'EXHAUSTED' })
    clock.advance(1000)
    const revoked = await admin({ method: 'POST', url: '/gift-codes/pulled/revoke' })
    t.equal(revoked.statusCode, 200)
    t.match(revoked.json(), {
      code: 'PULLED',
      revoked: true,
      revokedAt: new Date(clock.now()).toISOString(),
      status: 'REVOKED',
      redemptionCount: 1,
    })
    clock.advance(1000)
    t.same(
      (await admin({ method: 'POST', url: '/gift-codes/PULLED/revoke' })).json(),
      revoked.json(),
      'a second revoke changes nothing',
    )
    for (const who of [user, other]) {
      t.same((await validateCode(ctx, who, 'PULLED')).json(), { valid: false, reason: 'REVOKED' })
      assertRefused(t, await redeemCode(ctx, who, 'PULLED'), 'REVOKED')
    }
    assertError(t, await admin({ method: 'POST', url: '/gift-codes/NOPE-NOPE/revoke' }), 404, 'NOT_FOUND')
    assertError(t, await admin({ method: 'POST', url: '/gift-codes/!!/revoke' }), 404, 'NOT_FOUND')
  })

  t.test('EXHAUSTED for others, ALREADY_REDEEMED for those who have it, even after expiry', async (t) => {
    const [first, second] = [await createUser(ctx), await createUser(ctx)]
    await createGiftCode(ctx, {
      code: 'ONLY-ONE',
      maxRedemptions: 1,
      expiresAt: new Date(clock.now() + HOUR).toISOString(),
    })
    t.equal((await redeemCode(ctx, first, 'ONLY-ONE')).json().success, true)
    t.same((await validateCode(ctx, second, 'ONLY-ONE')).json(), { valid: false, reason: 'EXHAUSTED' })
    assertRefused(t, await redeemCode(ctx, second, 'ONLY-ONE'), 'EXHAUSTED')
    t.same((await validateCode(ctx, first, 'ONLY-ONE')).json(), { valid: false, reason: 'ALREADY_REDEEMED' })
    assertRefused(t, await redeemCode(ctx, first, 'only-one'), 'ALREADY_REDEEMED')
    t.equal((await admin({ method: 'GET', url: '/gift-codes/ONLY-ONE' })).json().status, 'EXHAUSTED')
    clock.advance(HOUR)
    t.same((await validateCode(ctx, first, 'ONLY-ONE')).json(), { valid: false, reason: 'ALREADY_REDEEMED' })
    t.same(
      (await validateCode(ctx, second, 'ONLY-ONE')).json(),
      { valid: false, reason: 'EXPIRED' },
      'EXPIRED before EXHAUSTED',
    )
    t.equal(await count('ONLY-ONE'), 1)
  })

  t.test('validate and redeem: bad requests and identity', async (t) => {
    await createGiftCode(ctx, { code: 'IDENTITY' })
    const user = await createUser(ctx)
    const other = await createUser(ctx)
    for (const url of ['/gift-codes/validate', '/gift-codes/redeem']) {
      for (const payload of [
        { userId: user.userId },
        { code: 123, userId: user.userId },
        { code: 'IDENTITY', userId: 'nope' },
        { code: 'IDENTITY' },
        { code: 'x'.repeat(257), userId: user.userId },
      ]) {
        assertError(t, await call({ method: 'POST', url, payload }), 400, 'VALIDATION_ERROR')
      }
      assertError(
        t,
        await call({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: '{"code":' }),
        400,
        'INVALID_JSON',
      )
      assertError(
        t,
        await call({ method: 'POST', url, payload: { code: 'IDENTITY', userId: UNKNOWN_USER } }),
        404,
        'USER_NOT_FOUND',
      )
      assertError(
        t,
        await call({ method: 'POST', url, headers: bearer(other), payload: { code: 'IDENTITY', userId: user.userId } }),
        403,
        'SESSION_FORBIDDEN',
      )
      assertError(
        t,
        await call({
          method: 'POST',
          url,
          headers: { authorization: 'Bearer bogus' },
          payload: { code: 'IDENTITY', userId: user.userId },
        }),
        401,
        'SESSION_REQUIRED',
      )
      assertError(
        t,
        await ctx.app.inject({
          method: 'POST',
          url: `/api/v1/app${url}`,
          payload: { code: 'IDENTITY', userId: user.userId },
        }),
        401,
        'UNAUTHORIZED',
      )
    }
    await admin({ method: 'POST', url: `/users/${other.userId}/ban`, payload: {} })
    assertError(t, await redeemCode(ctx, other, 'IDENTITY', false), 403, 'USER_BANNED')
    t.equal(await count('IDENTITY'), 0, 'nothing redeemed by any of them')
    // A user deleted between the identity check and the redemption: the foreign key answers.
    await t.rejects(redeemGiftCode(ctx.app.db, UNKNOWN_USER, 'IDENTITY', 3, clock.now()), {
      statusCode: 404,
      code: 'USER_NOT_FOUND',
    })
    t.equal(await count('IDENTITY'), 0, 'and the counter was rolled back')
  })
})
