import t from 'tap'
import { randomUUID } from 'node:crypto'
import { assertError, buildTestApp, eachDialect, freshDatabase } from '../../helpers/app.js'
import { at, createNews } from '../../fixtures/content.js'
import { CONTENT_CHECK_INTERVAL_MS } from '../../../platform/content/content-cache.js'
import { bumpChangeCounter } from '../../../db/change-counters.js'

const HOUR = 3600_000

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  const { call, admin, clock } = ctx
  const news = async (query = '') => {
    const res = await call({ method: 'GET', url: `/news${query}` })
    if (res.statusCode !== 200) throw new Error(`news: ${res.statusCode} ${res.body}`)
    return res.json() as Array<{
      id: string
      title: string
      message: string
      releaseDate: string
      languageCode: string
    }>
  }

  t.test('empty state: a bare empty array', async (t) => {
    const res = await call({ method: 'GET', url: '/news' })
    t.equal(res.statusCode, 200)
    t.equal(res.body, '[]')
    t.same((await admin({ method: 'GET', url: '/news' })).json(), { items: [], nextCursor: null })
  })

  t.test('create, then newest first with exactly the SDK fields', async (t) => {
    const first = await createNews(ctx, { title: 'First', message: 'Hello' })
    t.match(first, {
      id: /^[0-9a-f-]{36}$/,
      title: 'First',
      message: 'Hello',
      languageCode: 'en',
      releaseDate: '2026-11-22T10:00:00.000Z',
      scheduled: false,
    })
    clock.advance(1000)
    const second = await createNews(ctx, { title: 'Zweite', message: 'Hallo', languageCode: 'DE' })
    t.equal(second.languageCode, 'de', 'stored canonical')
    const list = await news()
    t.same(
      list,
      [
        {
          id: second.id,
          title: 'Zweite',
          message: 'Hallo',
          releaseDate: '2026-11-22T10:00:01.000Z',
          languageCode: 'de',
        },
        { id: first.id, title: 'First', message: 'Hello', releaseDate: '2026-11-22T10:00:00.000Z', languageCode: 'en' },
      ],
      'at once, newest first',
    )
    const backdated = await createNews(ctx, { title: 'Old', releaseDate: '2026-01-01T00:00:00+01:00' })
    t.equal(backdated.releaseDate, '2025-12-31T23:00:00.000Z', 'any ISO 8601 form')
    t.equal((await news()).at(-1)!.title, 'Old')
  })

  t.test('limit and language filter', async (t) => {
    t.same(await news('?limit=0'), [], 'limit 0')
    t.equal((await news('?limit=1')).length, 1)
    t.equal((await news('?limit=100')).length, 3)
    // Contract §5.2 and §5.7: an integer out of range is clamped (as the PHP server does), not refused.
    t.equal((await news('?limit=101')).length, 3, 'limit 101 reads 100')
    t.same(await news('?limit=-1'), [], 'limit -1 reads 0')
    assertError(t, await call({ method: 'GET', url: '/news?limit=ten' }), 400, 'VALIDATION_ERROR')
    assertError(t, await call({ method: 'GET', url: '/news?limit=1.5' }), 400, 'VALIDATION_ERROR')
    t.same(
      (await news('?languageCode=de')).map((n) => n.title),
      ['Zweite'],
    )
    t.same(
      (await news('?languageCode=DE')).map((n) => n.title),
      ['Zweite'],
      'case-insensitive',
    )
    t.same(
      (await news('?languageCode=en&limit=20')).map((n) => n.title),
      ['First', 'Old'],
    )
    t.equal((await news('?languageCode=')).length, 3, '"" = all languages')
    t.same(await news('?languageCode=fr'), [])
    assertError(t, await call({ method: 'GET', url: '/news?languageCode=en_US' }), 400, 'VALIDATION_ERROR')
  })

  t.test('scheduled items appear when their time comes, with no write', async (t) => {
    const later = await createNews(ctx, { title: 'Scheduled', releaseDate: at(ctx, HOUR) })
    t.equal(later.scheduled, true)
    t.notOk(
      (await news()).some((n) => n.id === later.id),
      'hidden before its time',
    )
    t.equal((await admin({ method: 'GET', url: '/news' })).json().items[0].id, later.id, 'the operator sees it')
    clock.advance(HOUR - 1)
    t.notOk(
      (await news()).some((n) => n.id === later.id),
      'one millisecond early',
    )
    clock.advance(1)
    t.equal((await news())[0]!.id, later.id, 'released exactly at its time, first')
    t.equal((await admin({ method: 'GET', url: `/news?limit=1` })).json().items[0].scheduled, false)
  })

  t.test('bad admin bodies: 400, nothing stored', async (t) => {
    const before = (await admin({ method: 'GET', url: '/news?limit=100' })).json().items.length
    const post = (payload: unknown) => admin({ method: 'POST', url: '/news', payload: payload as object })
    const ok = { title: 'T', message: 'M', languageCode: 'en' }
    assertError(t, await post({ ...ok, title: '' }), 400, 'VALIDATION_ERROR')
    assertError(t, await post({ ...ok, title: 'x'.repeat(201) }), 400, 'VALIDATION_ERROR')
    assertError(t, await post({ ...ok, title: 'two\nlines' }), 400, 'VALIDATION_ERROR')
    assertError(t, await post({ ...ok, message: 'x'.repeat(10_001) }), 400, 'VALIDATION_ERROR')
    assertError(t, await post({ ...ok, message: 5 }), 400, 'VALIDATION_ERROR')
    assertError(t, await post({ ...ok, languageCode: 'en_US' }), 400, 'VALIDATION_ERROR')
    assertError(t, await post({ title: 'T', message: 'M' }), 400, 'VALIDATION_ERROR')
    assertError(t, await post({ ...ok, releaseDate: 'tomorrow' }), 400, 'VALIDATION_ERROR')
    assertError(t, await post({ ...ok, releaseDate: 1795343400000 }), 400, 'VALIDATION_ERROR')
    assertError(
      t,
      await admin({
        method: 'POST',
        url: '/news',
        headers: { 'content-type': 'application/json' },
        payload: '{"title":',
      }),
      400,
      'INVALID_JSON',
    )
    t.equal((await admin({ method: 'GET', url: '/news?limit=100' })).json().items.length, before)
    const max = await createNews(ctx, {
      title: 'é'.repeat(200),
      message: '🎮'.repeat(10_000),
      releaseDate: at(ctx, -HOUR * 24 * 365),
    })
    t.equal(max.message, '🎮'.repeat(10_000), 'longest message, four-byte characters')
    const nulls = await post({ ...ok, releaseDate: null })
    t.equal(nulls.statusCode, 201, 'null releaseDate = now')
    t.equal(nulls.json().releaseDate, new Date(clock.now()).toISOString())
  })

  t.test('update and delete', async (t) => {
    const item = await createNews(ctx, { title: 'Draft', message: 'v1' })
    clock.advance(1000)
    const put = (id: string, payload: unknown) =>
      admin({ method: 'PUT', url: `/news/${id}`, payload: payload as object })
    const updated = await put(item.id, { title: 'Final', languageCode: 'fr' })
    t.equal(updated.statusCode, 200)
    t.match(updated.json(), {
      id: item.id,
      title: 'Final',
      message: 'v1',
      languageCode: 'fr',
      createdAt: item.createdAt,
    })
    t.not(updated.json().updatedAt, item.updatedAt)
    t.match((await news('?languageCode=fr'))[0], { id: item.id, title: 'Final' }, 'players see it at once')
    const hidden = await put(item.id, { releaseDate: at(ctx, HOUR) })
    t.equal(hidden.json().scheduled, true)
    t.same(await news('?languageCode=fr'), [], 'moved into the future: hidden again')
    t.equal((await put(item.id, {})).statusCode, 200, 'an empty update changes nothing but is fine')
    assertError(t, await put(randomUUID(), { title: 'x' }), 404, 'NOT_FOUND')
    assertError(t, await put('not-a-uuid', { title: 'x' }), 400, 'VALIDATION_ERROR')
    assertError(t, await put(item.id, { title: 7 }), 400, 'VALIDATION_ERROR')
    t.same((await admin({ method: 'DELETE', url: `/news/${item.id}` })).json(), { id: item.id, deleted: true })
    assertError(t, await admin({ method: 'DELETE', url: `/news/${item.id}` }), 404, 'NOT_FOUND')
    clock.advance(HOUR)
    t.notOk(
      (await news('?limit=100')).some((n) => n.id === item.id),
      'deleted items never show',
    )
  })

  t.test('admin list: pages, language filter', async (t) => {
    const all: string[] = []
    let cursor: string | null = null
    for (let i = 0; i < 50; i++) {
      const res: { items: Array<{ id: string }>; nextCursor: string | null } = (
        await admin({ method: 'GET', url: `/news?limit=2${cursor ? `&cursor=${cursor}` : ''}` })
      ).json()
      all.push(...res.items.map((n: { id: string }) => n.id))
      cursor = res.nextCursor
      if (!cursor) break
    }
    t.equal(new Set(all).size, all.length, 'no item twice')
    t.equal(all.length, (await admin({ method: 'GET', url: '/news?limit=100' })).json().items.length)
    t.ok(
      (await admin({ method: 'GET', url: '/news?languageCode=DE' }))
        .json()
        .items.every((n: { languageCode: string }) => n.languageCode === 'de'),
    )
    assertError(t, await admin({ method: 'GET', url: '/news?limit=101' }), 400, 'VALIDATION_ERROR')
    assertError(t, await admin({ method: 'GET', url: '/news?cursor=zzz' }), 400, 'VALIDATION_ERROR')
  })

  t.test('races: concurrent creates all land; concurrent reads never fail', async (t) => {
    const results = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) =>
        admin({ method: 'POST', url: '/news', payload: { title: `Race ${i}`, message: 'm', languageCode: 'nl' } }),
      ),
      ...Array.from({ length: 10 }, () => call({ method: 'GET', url: '/news?languageCode=nl' })),
    ])
    t.same(
      results.slice(0, 10).map((r) => r.statusCode),
      Array(10).fill(201),
    )
    t.same(
      results.slice(10).map((r) => r.statusCode),
      Array(10).fill(200),
    )
    t.equal((await news('?languageCode=nl&limit=100')).length, 10)
  })
})

eachDialect(t, async (t, dialect) => {
  t.test('the in-memory copy stays exact past 100 items per language', async (t) => {
    const ctx = await buildTestApp(t, dialect)
    const db = ctx.app.db
    const now = ctx.clock.now()
    const row = (i: number, language: string, release: number) => ({
      id: randomUUID(),
      title: `${language} ${i}`,
      message: 'm',
      language_code: language,
      release_date: release,
      created_at: now,
      updated_at: now,
    })
    // 150 recent English items bury 5 older German ones in the overall top 100; 3 are scheduled.
    const rows = [
      ...Array.from({ length: 150 }, (_, i) => row(i, 'en', now - 1000 - i)),
      ...Array.from({ length: 5 }, (_, i) => row(i, 'de', now - 10 * HOUR - i)),
      ...Array.from({ length: 3 }, (_, i) => row(i, 'de', now + (i + 1) * HOUR)),
    ]
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('news').values(rows).execute()
      await bumpChangeCounter(trx, 'news')
    })
    const news = async (query: string) =>
      (await ctx.call({ method: 'GET', url: `/news${query}` })).json() as Array<{ title: string }>
    t.equal((await news('?limit=100')).length, 100)
    t.equal((await news('?limit=100')).at(-1)!.title, 'en 99')
    t.equal((await news('?limit=500')).length, 100, 'limit 500 reads 100')
    t.same(
      (await news('?languageCode=de')).map((n) => n.title),
      ['de 0', 'de 1', 'de 2', 'de 3', 'de 4'],
    )
    ctx.clock.advance(2 * HOUR)
    t.same(
      (await news('?languageCode=de&limit=3')).map((n) => n.title),
      ['de 1', 'de 0', 'de 0'],
      'two scheduled released, newest first',
    )
    t.equal((await news('?limit=100'))[0]!.title, 'de 1')
    t.equal((await news('?limit=100')).at(-1)!.title, 'en 97', 'still exactly the newest 100')
  })

  t.test("two instances on one database: B sees A's news within the check interval", async (t) => {
    const dbEnv = await freshDatabase(t, dialect)
    const a = await buildTestApp(t, dialect, { dbEnv })
    const b = await buildTestApp(t, dialect, { dbEnv })
    t.same((await b.call({ method: 'GET', url: '/news' })).json(), [])
    const item = await createNews(a, { title: 'From A' })
    t.equal((await a.call({ method: 'GET', url: '/news' })).json()[0].id, item.id, 'A at once')
    b.clock.advance(CONTENT_CHECK_INTERVAL_MS - 1)
    t.same((await b.call({ method: 'GET', url: '/news' })).json(), [], 'B inside the interval')
    b.clock.advance(1)
    t.equal((await b.call({ method: 'GET', url: '/news' })).json()[0]?.id, item.id, 'B after the interval')
    await a.admin({ method: 'PUT', url: `/news/${item.id}`, payload: { title: 'Edited on A' } })
    b.clock.advance(CONTENT_CHECK_INTERVAL_MS)
    t.equal((await b.call({ method: 'GET', url: '/news' })).json()[0]?.title, 'Edited on A')
  })
})
