import t, { type Test } from 'tap'
import { assertError, buildTestApp, eachDialect, freshDatabase } from './helpers/app.js'
import { bearer, createUser } from './fixtures/users.js'
import { createCosmetic } from './fixtures/player-profile.js'
import { createGiftCode, redeemCode, validateCode } from './fixtures/gift-codes.js'
import { normalizeCode, redeemGiftCode } from '../plugins/gift-codes/service.js'
import { CODE_ALPHABET, insertRandomCodes } from '../plugins/gift-codes/admin-service.js'

const HOUR = 3_600_000
const UNKNOWN_USER = '7d1e0f9a-3b2c-4d5e-8f60-718293a4b5c6'
const RANDOM_PART = `[${CODE_ALPHABET}]{4}-[${CODE_ALPHABET}]{4}-[${CODE_ALPHABET}]{4}`

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
  const ctx = await buildTestApp(t, dialect, { env: { PROFILE_MAX_UNLOCKS: '3' } })
  const { call, admin, clock } = ctx
  await createCosmetic(ctx, 'champion', 'badge', true)
  await createCosmetic(ctx, 'star', 'badge', true)
  await createCosmetic(ctx, 'b1', 'badge', true)
  await createCosmetic(ctx, 'b2', 'badge', true)
  await createCosmetic(ctx, 'b3', 'badge', true)
  const count = async (code: string) =>
    (await admin({ method: 'GET', url: `/gift-codes/${code}` })).json().redemptionCount

  t.test('admin create: stored upper-case, generated when absent, the stored object answered', async (t) => {
    const startsAt = '2026-11-22T11:00:00+01:00'
    const res = await admin({
      method: 'POST',
      url: '/gift-codes',
      payload: {
        code: 'welcome-2026',
        giftData: '{"gems":5}',
        grants: ['star', 'champion'],
        maxRedemptions: 3,
        startsAt,
        expiresAt: '2026-12-01T00:00:00.1234567Z',
      },
    })
    t.equal(res.statusCode, 201)
    const body = res.json()
    t.match(body, {
      code: 'WELCOME-2026',
      giftData: '{"gems":5}',
      grants: ['champion', 'star'],
      maxRedemptions: 3,
      redemptionCount: 0,
      startsAt: '2026-11-22T10:00:00.000Z',
      expiresAt: '2026-12-01T00:00:00.123Z',
      revoked: false,
      revokedAt: null,
      status: 'ACTIVE',
      createdAt: '2026-11-22T10:00:00.000Z',
    })
    t.same(
      (await admin({ method: 'GET', url: '/gift-codes/Welcome-2026' })).json(),
      body,
      'the detail is the stored object',
    )
    assertError(
      t,
      await admin({
        method: 'POST',
        url: '/gift-codes',
        payload: { code: 'WELCOME-2026', giftData: '', maxRedemptions: 1 },
      }),
      409,
      'CONFLICT',
    )

    const generated = await createGiftCode(ctx, { code: null, giftData: '', maxRedemptions: 1 })
    t.match(generated.code, new RegExp(`^${RANDOM_PART}$`), 'a random code with no look-alike characters')
    t.same(generated.grants, [])
    t.equal((await createGiftCode(ctx, { code: '', maxRedemptions: 1 })).code.length, 14, '"" counts as absent')
  })

  t.test('admin create: bad inputs are 4xx and store nothing', async (t) => {
    const before = (await admin({ method: 'GET', url: '/gift-codes?limit=100' })).json().items.length
    const ok = { giftData: '{}', maxRedemptions: 5 }
    const cases: Array<[unknown, number, string]> = [
      [{ ...ok, maxRedemptions: '5' }, 400, 'VALIDATION_ERROR'],
      [{ ...ok, maxRedemptions: 0 }, 400, 'VALIDATION_ERROR'],
      [{ ...ok, maxRedemptions: 1.5 }, 400, 'VALIDATION_ERROR'],
      [{ maxRedemptions: 5 }, 400, 'VALIDATION_ERROR'],
      [{ giftData: '{}' }, 400, 'VALIDATION_ERROR'],
      [{ ...ok, giftData: { coins: 1 } }, 400, 'VALIDATION_ERROR'],
      [{ ...ok, giftData: 'x'.repeat(10_001) }, 400, 'VALIDATION_ERROR'],
      [{ ...ok, code: 'abc' }, 400, 'VALIDATION_ERROR'],
      [{ ...ok, code: 'A'.repeat(33) }, 400, 'VALIDATION_ERROR'],
      [{ ...ok, code: 'HAS SPACE' }, 400, 'VALIDATION_ERROR'],
      [{ ...ok, code: 'ÄÖÜß' }, 400, 'VALIDATION_ERROR'],
      [{ ...ok, grants: ['star', 'star'] }, 400, 'VALIDATION_ERROR'],
      [{ ...ok, grants: ['Star'] }, 400, 'VALIDATION_ERROR'],
      [{ ...ok, grants: Array.from({ length: 11 }, (_, i) => `g${i}`) }, 400, 'VALIDATION_ERROR'],
      [{ ...ok, grants: ['star', 'ghost'] }, 400, 'COSMETIC_NOT_FOUND'],
      [{ ...ok, startsAt: 'tomorrow' }, 400, 'VALIDATION_ERROR'],
      [{ ...ok, startsAt: '2026-12-01T00:00:00Z', expiresAt: '2026-12-01T00:00:00Z' }, 400, 'VALIDATION_ERROR'],
    ]
    for (const [payload, status, code] of cases) {
      assertError(t, await admin({ method: 'POST', url: '/gift-codes', payload: payload as object }), status, code)
    }
    const malformed = await admin({
      method: 'POST',
      url: '/gift-codes',
      headers: { 'content-type': 'application/json' },
      payload: '{"giftData":',
    })
    assertError(t, malformed, 400, 'INVALID_JSON')
    t.equal(
      (await admin({ method: 'GET', url: '/gift-codes?limit=100' })).json().items.length,
      before,
      'nothing stored',
    )
    const noKey = await ctx.app.inject({ method: 'POST', url: '/api/v1/admin/gift-codes', payload: ok })
    assertError(t, noKey, 401, 'UNAUTHORIZED')
  })

  t.test('generate: random codes after the prefix, unique, in one call', async (t) => {
    const res = await admin({
      method: 'POST',
      url: '/gift-codes/generate',
      payload: {
        count: 120,
        prefix: 'summer',
        giftData: '{"skin":"beach"}',
        grants: ['star'],
        maxRedemptions: 1,
        expiresAt: '2027-01-01T00:00:00Z',
      },
    })
    t.equal(res.statusCode, 201)
    const body = res.json()
    t.equal(body.count, 120)
    t.equal(new Set(body.codes).size, 120, 'unique')
    for (const code of body.codes) t.match(code, new RegExp(`^SUMMER-${RANDOM_PART}$`))
    t.match(body, {
      giftData: '{"skin":"beach"}',
      grants: ['star'],
      maxRedemptions: 1,
      startsAt: null,
      expiresAt: '2027-01-01T00:00:00.000Z',
    })
    const dashed = (
      await admin({
        method: 'POST',
        url: '/gift-codes/generate',
        payload: { count: 1, prefix: 'X-', giftData: '', maxRedemptions: 1 },
      })
    ).json()
    t.match(dashed.codes[0], new RegExp(`^X-${RANDOM_PART}$`), 'a prefix ending in "-" gets no second one')

    const listed: string[] = []
    let cursor: string | null = null
    for (let pages = 0; pages < 10; pages++) {
      const url: string = `/gift-codes?prefix=Summer-&limit=50${cursor ? `&cursor=${cursor}` : ''}`
      const list = (await admin({ method: 'GET', url })).json()
      listed.push(...list.items.map((item: any) => item.code))
      t.ok(list.items.every((item: any) => item.redemptionCount === 0 && item.status === 'ACTIVE'))
      cursor = list.nextCursor
      if (!cursor) break
    }
    t.same(listed.sort(), [...body.codes].sort(), 'every generated code is listed once, across pages')

    for (const payload of [
      { count: 0, giftData: '', maxRedemptions: 1 },
      { count: 10_001, giftData: '', maxRedemptions: 1 },
      { count: '5', giftData: '', maxRedemptions: 1 },
      { count: 5, prefix: 'P'.repeat(17), giftData: '', maxRedemptions: 1 },
      { count: 5, prefix: 'NO_UNDERSCORE', giftData: '', maxRedemptions: 1 },
      { count: 5, giftData: '', maxRedemptions: 1, grants: ['ghost'] },
    ]) {
      const refused = await admin({ method: 'POST', url: '/gift-codes/generate', payload })
      t.equal(refused.statusCode, 400, JSON.stringify(payload).slice(0, 80))
    }
  })

  t.test('generate: the upper bound of 10,000 codes in one call', async (t) => {
    const started = Date.now()
    const res = await admin({
      method: 'POST',
      url: '/gift-codes/generate',
      payload: { count: 10_000, prefix: 'BULK', giftData: '', maxRedemptions: 1 },
    })
    t.equal(res.statusCode, 201)
    t.equal(new Set(res.json().codes).size, 10_000)
    const stored = await ctx.app.db
      .selectFrom('gift_codes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('code', 'like', 'BULK-%')
      .executeTakeFirstOrThrow()
    t.equal(Number(stored.n), 10_000)
    t.comment(`${dialect}: 10,000 codes generated in ${Date.now() - started} ms`)
  })

  t.test('generation draws again over codes drawn twice or already stored', async (t) => {
    await createGiftCode(ctx, { code: 'TAKEN-0001' })
    const draws = ['TAKEN-0001', 'FRESH-0001', 'FRESH-0001', 'FRESH-0002', 'TAKEN-0001', 'FRESH-0003']
    const settings = { giftData: '', grants: [], maxRedemptions: 1, startsAt: null, expiresAt: null }
    const codes = await insertRandomCodes(ctx.app.db, 3, undefined, settings, clock.now(), () => draws.shift()!)
    t.same(codes.sort(), ['FRESH-0001', 'FRESH-0002', 'FRESH-0003'])
    t.equal(draws.length, 0)
    const stuck = insertRandomCodes(ctx.app.db, 1, undefined, settings, clock.now(), () => 'TAKEN-0001')
    await t.rejects(
      stuck,
      { statusCode: 409, code: 'CONFLICT' },
      'a code space that is all taken ends, it does not spin',
    )
  })

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

const twoInstances = process.env.TEST_MYSQL_URL ? false : 'TEST_MYSQL_URL is not set: the two-instance leg did not run'
t.test(
  'two server instances on one MariaDB database, requests split between them',
  { skip: twoInstances },
  async (t) => {
    const dbEnv = await freshDatabase(t, 'mysql')
    const a = await buildTestApp(t, 'mysql', { dbEnv })
    const b = await buildTestApp(t, 'mysql', { dbEnv })
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
  },
)
