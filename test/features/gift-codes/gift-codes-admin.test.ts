// Gift codes as the operator makes them: one code (stored upper-case, or generated), many codes at once
// after a prefix (up to 10,000 in one call), and what the admin API refuses.
import t from 'tap'
import { assertError, eachDialect } from '../../helpers/app.js'
import { buildGiftCodeApp, createGiftCode } from '../../fixtures/gift-codes.js'
import { CODE_ALPHABET, insertRandomCodes } from '../../../features/gift-codes/admin-service.js'

const RANDOM_PART = `[${CODE_ALPHABET}]{4}-[${CODE_ALPHABET}]{4}-[${CODE_ALPHABET}]{4}`

eachDialect(t, async (t, dialect) => {
  const { ctx } = await buildGiftCodeApp(t, dialect)
  const { admin, clock } = ctx

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
})
