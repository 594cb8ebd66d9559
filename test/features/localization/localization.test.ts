import t from 'tap'
import { assertError, buildTestApp, eachDialect, freshDatabase } from '../../helpers/app.js'
import { putTranslations } from '../../fixtures/content.js'
import { CONTENT_CHECK_INTERVAL_MS } from '../../../platform/content/content-cache.js'
import { canonicalLanguageTag, fallbackChain } from '../../../platform/content/language-tag.js'

t.test('language tags: canonical form and lookup chain', async (t) => {
  t.equal(canonicalLanguageTag('pt-br'), 'pt-BR')
  t.equal(canonicalLanguageTag('ZH-hant-tw'), 'zh-Hant-TW')
  t.equal(canonicalLanguageTag('en_US'), undefined)
  t.equal(canonicalLanguageTag('e'), undefined)
  t.equal(canonicalLanguageTag('x'.repeat(36)), undefined)
  t.equal(canonicalLanguageTag('en-'), undefined)
  t.same(fallbackChain('zh-Hant-TW', 'en'), ['zh-Hant-TW', 'zh-Hant', 'zh', 'en'])
  t.same(fallbackChain('en-GB', 'en'), ['en-GB', 'en'])
  t.same(fallbackChain('de-u-co-phonebk', 'en'), ['de-u-co-phonebk', 'de-u-co', 'de', 'en'])
})

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  const { call, admin } = ctx
  const get = (url: string, headers = {}) => call({ method: 'GET', url, headers })

  t.test('empty state', async (t) => {
    t.same((await get('/localization/languages')).json(), { languages: [], total: 0, defaultLanguage: 'en' })
    t.same((await get('/localization/all?lang=de')).json(), { language: 'de', translations: {}, total: 0 })
    t.same((await get('/localization/menu.start?lang=de')).json(), {
      localizationKey: 'menu.start',
      key: 'menu.start',
      language: 'de',
      value: null,
      found: false,
      resolvedLang: null,
    })
  })

  t.test('bulk upsert, then the fields the SDKs read', async (t) => {
    const res = await putTranslations(ctx, 'en', {
      'menu.start': 'Start',
      'menu.quit': 'Quit',
      'only.en': 'English only',
    })
    t.same(res, {
      language: 'en',
      upserted: 3,
      translations: { 'menu.start': 'Start', 'menu.quit': 'Quit', 'only.en': 'English only' },
    })
    await putTranslations(ctx, 'de', { 'menu.start': 'Starten', 'menu.quit': 'Beenden' })
    await putTranslations(ctx, 'PT-br', { 'menu.start': 'Iniciar' })
    await putTranslations(ctx, 'pt', { 'menu.quit': 'Sair', 'only.pt': 'Só pt' })
    const de = await get('/localization/menu.start?lang=de')
    t.equal(de.statusCode, 200)
    t.same(de.json(), {
      localizationKey: 'menu.start',
      key: 'menu.start',
      language: 'de',
      value: 'Starten',
      found: true,
      resolvedLang: 'de',
    })
    t.same(
      (await get('/localization/only.en?lang=de')).json(),
      {
        localizationKey: 'only.en',
        key: 'only.en',
        language: 'de',
        value: 'English only',
        found: true,
        resolvedLang: 'en',
      },
      'missing in de, present in en',
    )
    t.match(
      (await get('/localization/menu.start?lang=pt-br')).json(),
      { value: 'Iniciar', resolvedLang: 'pt-BR', language: 'pt-BR' },
      'lower-cased tag (Unreal SDK)',
    )
    t.match(
      (await get('/localization/menu.quit?lang=pt-BR')).json(),
      { value: 'Sair', resolvedLang: 'pt' },
      'pt-BR → pt',
    )
    t.match(
      (await get('/localization/only.en?lang=pt-BR')).json(),
      { value: 'English only', resolvedLang: 'en' },
      'pt-BR → pt → en',
    )
    t.match(
      (await get('/localization/menu.start')).json(),
      { value: 'Start', language: 'en', resolvedLang: 'en' },
      'no lang: default',
    )
    t.match(
      (await get('/localization/menu.start?lang=')).json(),
      { value: 'Start', language: 'en' },
      'empty lang: default',
    )
    t.match(
      (await get('/localization/menu.start?lang=fr-CA')).json(),
      { value: 'Start', resolvedLang: 'en' },
      'unknown language → default',
    )
    t.match((await get('/localization/Menu.Start?lang=en')).json(), { found: false }, 'keys are case-sensitive')
    t.same((await get('/localization/languages')).json(), {
      languages: ['de', 'en', 'pt', 'pt-BR'],
      total: 4,
      defaultLanguage: 'en',
    })
  })

  t.test('all: gaps filled along the chain', async (t) => {
    t.same((await get('/localization/all?lang=pt-br')).json(), {
      language: 'pt-BR',
      translations: { 'menu.quit': 'Sair', 'menu.start': 'Iniciar', 'only.en': 'English only', 'only.pt': 'Só pt' },
      total: 4,
    })
    t.same((await get('/localization/all?lang=de')).json().translations, {
      'menu.quit': 'Beenden',
      'menu.start': 'Starten',
      'only.en': 'English only',
    })
    t.same((await get('/localization/all')).json(), {
      language: 'en',
      translations: { 'menu.quit': 'Quit', 'menu.start': 'Start', 'only.en': 'English only' },
      total: 3,
    })
    t.equal((await get('/localization/all?lang=DE')).json().language, 'de')
  })

  t.test('bad language tags and keys: 400', async (t) => {
    assertError(t, await get('/localization/menu.start?lang=en_US'), 400, 'VALIDATION_ERROR')
    assertError(t, await get('/localization/all?lang=not%20a%20tag'), 400, 'VALIDATION_ERROR')
    assertError(t, await get(`/localization/all?lang=${'a'.repeat(36)}`), 400, 'VALIDATION_ERROR')
    assertError(t, await get('/localization/bad$key'), 400, 'VALIDATION_ERROR')
    assertError(t, await get(`/localization/${'k'.repeat(129)}`), 400, 'VALIDATION_ERROR')
    const put = (url: string, payload: unknown) => admin({ method: 'PUT', url, payload: payload as object })
    assertError(t, await put('/localization/en_US', { translations: { a: 'b' } }), 400, 'VALIDATION_ERROR')
    assertError(t, await put('/localization/en/languages', { value: 'x' }), 400, 'VALIDATION_ERROR')
    assertError(t, await put('/localization/en/all', { value: 'x' }), 400, 'VALIDATION_ERROR')
    assertError(t, await put('/localization/en/ok.key', { value: 7 }), 400, 'VALIDATION_ERROR')
    assertError(t, await put('/localization/en/ok.key', { value: 'x'.repeat(16_385) }), 400, 'VALIDATION_ERROR')
    assertError(t, await put('/localization/en/ok.key', {}), 400, 'VALIDATION_ERROR')
    assertError(
      t,
      await admin({
        method: 'PUT',
        url: '/localization/en',
        headers: { 'content-type': 'application/json' },
        payload: '{"translations":{',
      }),
      400,
      'INVALID_JSON',
    )
    t.match((await get('/localization/ok.key?lang=en')).json(), { found: false }, 'nothing stored')
  })

  t.test('bulk upsert is all or nothing', async (t) => {
    const before = (await get('/localization/all?lang=en')).json()
    const bulk = (translations: unknown) =>
      admin({ method: 'PUT', url: '/localization/en', payload: { translations } as object })
    assertError(t, await bulk({ 'menu.start': 'CHANGED', 'bad key': 'x' }), 400, 'VALIDATION_ERROR')
    assertError(t, await bulk({ 'menu.start': 'CHANGED', languages: 'x' }), 400, 'VALIDATION_ERROR')
    assertError(t, await bulk({ 'menu.start': 'CHANGED', 'menu.quit': null }), 400, 'VALIDATION_ERROR')
    assertError(t, await bulk({ 'menu.start': 'CHANGED', 'menu.quit': 'x'.repeat(16_385) }), 400, 'VALIDATION_ERROR')
    assertError(t, await bulk('nope'), 400, 'VALIDATION_ERROR')
    t.same((await get('/localization/all?lang=en')).json(), before, 'nothing stored')
    const upd = await putTranslations(ctx, 'en', { 'menu.start': 'Play', 'new.key': 'New' })
    t.equal(upd.upserted, 2)
    t.match(
      (await get('/localization/all?lang=en')).json().translations,
      { 'menu.start': 'Play', 'new.key': 'New', 'menu.quit': 'Quit' },
      'others kept',
    )
    const big = await admin({
      method: 'PUT',
      url: '/localization/ja/long.text',
      payload: { value: '語'.repeat(16_384) },
    })
    t.equal(big.statusCode, 200, '16,384 characters of three bytes each fit')
  })

  t.test('put and delete one value, delete a language', async (t) => {
    const one = await admin({ method: 'PUT', url: '/localization/FR/menu.start', payload: { value: 'Démarrer' } })
    t.equal(one.statusCode, 200)
    t.same(one.json(), { language: 'fr', key: 'menu.start', value: 'Démarrer', updatedAt: '2026-11-22T10:00:00.000Z' })
    t.match(
      (await get('/localization/menu.start?lang=fr')).json(),
      { value: 'Démarrer', resolvedLang: 'fr' },
      'at once',
    )
    await admin({ method: 'PUT', url: '/localization/fr/menu.quit', payload: { value: 'Quitter' } })
    t.same((await admin({ method: 'DELETE', url: '/localization/fr/menu.start' })).json(), {
      language: 'fr',
      key: 'menu.start',
      deleted: true,
    })
    t.match(
      (await get('/localization/menu.start?lang=fr')).json(),
      { value: 'Play', resolvedLang: 'en' },
      'falls back after delete',
    )
    assertError(t, await admin({ method: 'DELETE', url: '/localization/fr/menu.start' }), 404, 'NOT_FOUND')
    t.ok((await get('/localization/languages')).json().languages.includes('fr'))
    t.same((await admin({ method: 'DELETE', url: '/localization/FR' })).json(), { language: 'fr', deleted: 1 })
    t.notOk(
      (await get('/localization/languages')).json().languages.includes('fr'),
      'a language without values is not listed',
    )
    assertError(t, await admin({ method: 'DELETE', url: '/localization/fr' }), 404, 'NOT_FOUND')
    assertError(t, await admin({ method: 'DELETE', url: '/localization/f_r' }), 400, 'VALIDATION_ERROR')
  })

  t.test('ETag / If-None-Match', async (t) => {
    for (const url of ['/localization/menu.start?lang=de', '/localization/all?lang=de', '/localization/languages']) {
      const first = await get(url)
      const etag = first.headers.etag as string
      t.match(etag, /^"[A-Za-z0-9_-]+"$/)
      const again = await get(url, { 'if-none-match': etag })
      t.equal(again.statusCode, 304, `${url} 304`)
      t.equal(again.body, '')
      t.equal((await get(url, { 'if-none-match': '*' })).statusCode, 304, 'If-None-Match: *')
    }
    const old = (await get('/localization/all?lang=de')).headers.etag as string
    await putTranslations(ctx, 'de', { 'menu.start': 'Los' })
    const fresh = await get('/localization/all?lang=de', { 'if-none-match': old })
    t.equal(fresh.statusCode, 200)
    t.equal(fresh.json().translations['menu.start'], 'Los')
  })

  t.test('races: concurrent bulk upserts over the same keys all succeed', async (t) => {
    const keys = Array.from({ length: 30 }, (_, i) => `race.k${i}`)
    const writes = Array.from({ length: 8 }, (_, w) => {
      const order = w % 2 === 0 ? keys : [...keys].reverse()
      return admin({
        method: 'PUT',
        url: '/localization/es',
        payload: { translations: Object.fromEntries(order.map((k) => [k, `w${w}`])) },
      })
    })
    const reads = Array.from({ length: 8 }, () => get('/localization/all?lang=es'))
    const results = await Promise.all([...writes, ...reads])
    t.same(
      results.map((r) => r.statusCode),
      results.map(() => 200),
    )
    const values = Object.entries((await get('/localization/all?lang=es')).json().translations).filter(([k]) =>
      k.startsWith('race.'),
    )
    t.equal(values.length, 30)
    t.equal(new Set(values.map(([, v]) => v)).size, 1, 'each transaction applied whole: one writer won every key')
  })
})

eachDialect(t, async (t, dialect) => {
  t.test('two instances on one database and another default language', async (t) => {
    const dbEnv = await freshDatabase(t, dialect)
    const a = await buildTestApp(t, dialect, { dbEnv })
    const b = await buildTestApp(t, dialect, { dbEnv, env: { DEFAULT_LANGUAGE: 'DE' } })
    t.same((await b.call({ method: 'GET', url: '/localization/languages' })).json(), {
      languages: [],
      total: 0,
      defaultLanguage: 'de',
    })
    await putTranslations(a, 'de', { hello: 'Hallo' })
    await putTranslations(a, 'en', { hello: 'Hello', bye: 'Bye' })
    b.clock.advance(CONTENT_CHECK_INTERVAL_MS - 1)
    t.equal(
      (await b.call({ method: 'GET', url: '/localization/hello?lang=fr' })).json().found,
      false,
      'B inside the interval',
    )
    b.clock.advance(1)
    t.match(
      (await b.call({ method: 'GET', url: '/localization/hello?lang=fr' })).json(),
      { value: 'Hallo', resolvedLang: 'de' },
      'B after: its own default language',
    )
    t.match(
      (await a.call({ method: 'GET', url: '/localization/hello?lang=fr' })).json(),
      { value: 'Hello', resolvedLang: 'en' },
      'A: its default language',
    )
    t.same((await b.call({ method: 'GET', url: '/localization/all?lang=fr' })).json().translations, { hello: 'Hallo' })
  })
})

eachDialect(t, async (t, dialect) => {
  t.test('the admin grid: keys × languages, paged by key, filtered, strict', async (t) => {
    const ctx = await buildTestApp(t, dialect)
    const empty = await ctx.admin({ method: 'GET', url: '/localization' })
    t.equal(empty.statusCode, 200)
    t.same(empty.json(), { items: [], languages: [], nextCursor: null }, 'an empty database: no rows, no languages')

    // Upper and lower case sort apart (code-point order, binary on both databases): "B" before "a".
    const en = { 'menu.play': 'Play', 'menu.quit': 'Quit', 'B.title': 'Title', 'a.only-en': 'Only' }
    const ptBr = { 'menu.play': 'Jogar', 'B.title': 'Título' }
    t.equal(
      (await ctx.admin({ method: 'PUT', url: '/localization/en', payload: { translations: en } })).statusCode,
      200,
    )
    t.equal(
      (await ctx.admin({ method: 'PUT', url: '/localization/pt-br', payload: { translations: ptBr } })).statusCode,
      200,
    )
    t.equal(
      (await ctx.admin({ method: 'PUT', url: '/localization/de/menu.quit', payload: { value: 'Beenden' } })).statusCode,
      200,
    )

    const seen: Array<{ key: string; values: Record<string, string> }> = []
    let cursor: string | null = null
    let pages = 0
    do {
      const url: string = `/localization?limit=3${cursor ? `&cursor=${cursor}` : ''}`
      const response = await ctx.admin({ method: 'GET', url })
      t.equal(response.statusCode, 200)
      const body = response.json()
      t.same(body.languages, ['de', 'en', 'pt-BR'], 'every language on every page, canonical and sorted')
      t.ok(body.items.length <= 3)
      seen.push(...body.items)
      cursor = body.nextCursor
      pages++
    } while (cursor && pages < 10)
    t.equal(pages, 2, 'four keys at three a page: two pages')
    t.same(seen, [
      { key: 'B.title', values: { en: 'Title', 'pt-BR': 'Título' } },
      { key: 'a.only-en', values: { en: 'Only' } },
      { key: 'menu.play', values: { en: 'Play', 'pt-BR': 'Jogar' } },
      { key: 'menu.quit', values: { de: 'Beenden', en: 'Quit' } },
    ])

    const filtered = (await ctx.admin({ method: 'GET', url: '/localization?query=menu.' })).json()
    t.same(
      filtered.items.map((row: { key: string }) => row.key),
      ['menu.play', 'menu.quit'],
      'query keeps the keys containing it',
    )
    const caseSensitive = (await ctx.admin({ method: 'GET', url: '/localization?query=b.' })).json()
    t.same(caseSensitive.items, [], 'the filter is case-sensitive on both databases')

    // An edit shows in the grid and in the app API at once.
    await ctx.admin({ method: 'PUT', url: '/localization/de/menu.play', payload: { value: 'Spielen' } })
    const after = (await ctx.admin({ method: 'GET', url: '/localization?query=menu.play' })).json()
    t.same(after.items, [{ key: 'menu.play', values: { de: 'Spielen', en: 'Play', 'pt-BR': 'Jogar' } }])

    assertError(t, await ctx.admin({ method: 'GET', url: '/localization?cursor=nope' }), 400, 'VALIDATION_ERROR')
    assertError(t, await ctx.admin({ method: 'GET', url: '/localization?limit=0' }), 400, 'VALIDATION_ERROR')
    assertError(t, await ctx.admin({ method: 'GET', url: '/localization?lang=en' }), 400, 'VALIDATION_ERROR')
    assertError(t, await ctx.app.inject({ method: 'GET', url: '/api/v1/admin/localization' }), 401, 'UNAUTHORIZED')
  })
})
