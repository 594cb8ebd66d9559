import t from 'tap'
import { sql } from 'kysely'
import { assertError, buildTestApp, eachDialect, freshDatabase } from '../../helpers/app.js'
import { importConfigs, putConfig } from '../../fixtures/content.js'
import { CONTENT_CHECK_INTERVAL_MS, ContentCache } from '../../../platform/content/content-cache.js'
import { bumpChangeCounter } from '../../../db/change-counters.js'

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  const { call, admin } = ctx
  const get = (url: string, headers = {}) => call({ method: 'GET', url, headers })

  t.test('empty state', async (t) => {
    const all = await get('/remote-config/all')
    t.equal(all.statusCode, 200)
    t.equal(all.body, '{"configs":{},"total":0}', 'compact JSON')
    t.match(all.headers['content-type'], /^application\/json/)
    t.same((await get('/remote-config/some.key')).json(), { configKey: 'some.key', configValue: null, found: false })
    t.same((await get('/remote-config/filter?pattern=ui.*')).json(), {
      configs: {},
      total: 0,
      pattern: 'ui.*',
      matchType: 'PREFIX',
    })
    t.same((await admin({ method: 'GET', url: '/remote-config' })).json(), { items: [], nextCursor: null })
  })

  t.test('put, read one and all at once on the same instance; keys are case-sensitive', async (t) => {
    const stored = await putConfig(ctx, 'game.Speed', '1.5')
    t.match(stored, { configKey: 'game.Speed', configValue: '1.5', createdAt: '2026-11-22T10:00:00.000Z' })
    t.same((await get('/remote-config/game.Speed')).json(), {
      configKey: 'game.Speed',
      configValue: '1.5',
      found: true,
    })
    t.same((await get('/remote-config/game.speed')).json().found, false, 'another case is another key')
    await putConfig(ctx, 'game.speed', 'slow')
    t.equal((await get('/remote-config/game.Speed')).json().configValue, '1.5')
    t.equal((await get('/remote-config/game.speed')).json().configValue, 'slow')
    ctx.clock.advance(1000)
    const replaced = await putConfig(ctx, 'game.Speed', '2')
    t.equal(replaced.createdAt, '2026-11-22T10:00:00.000Z', 'created stays')
    t.equal(replaced.updatedAt, '2026-11-22T10:00:01.000Z')
    t.equal((await get('/remote-config/game.Speed')).json().configValue, '2', 'a write shows at once')
    const all = (await get('/remote-config/all')).json()
    t.same(all, { configs: { 'game.Speed': '2', 'game.speed': 'slow' }, total: 2 })
    const emoji = await putConfig(ctx, 'text.greeting', '{"msg":"héllo 🎮"}')
    t.equal(emoji.configValue, '{"msg":"héllo 🎮"}')
    t.equal(
      (await get('/remote-config/text.greeting')).json().configValue,
      '{"msg":"héllo 🎮"}',
      'values are strings, byte-exact',
    )
    const empty = await putConfig(ctx, 'flag.empty', '')
    t.equal(empty.configValue, '')
    t.same((await get('/remote-config/flag.empty')).json(), { configKey: 'flag.empty', configValue: '', found: true })
  })

  t.test('reserved and malformed keys', async (t) => {
    assertError(
      t,
      await admin({ method: 'PUT', url: '/remote-config/all', payload: { value: 'x' } }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(
      t,
      await admin({ method: 'PUT', url: '/remote-config/filter', payload: { value: 'x' } }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(
      t,
      await admin({ method: 'PUT', url: '/remote-config/has%20space', payload: { value: 'x' } }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(
      t,
      await admin({ method: 'PUT', url: `/remote-config/${'k'.repeat(129)}`, payload: { value: 'x' } }),
      400,
      'VALIDATION_ERROR',
    )
    t.equal(
      (await admin({ method: 'PUT', url: `/remote-config/${'k'.repeat(128)}`, payload: { value: 'x' } })).statusCode,
      200,
      '128 characters is fine',
    )
    assertError(t, await get('/remote-config/bad$key'), 400, 'VALIDATION_ERROR')
    assertError(t, await get(`/remote-config/${'k'.repeat(129)}`), 400, 'VALIDATION_ERROR')
    t.equal((await get('/remote-config/all')).json().configs.all, undefined, '/all is the route')
  })

  t.test('bad admin bodies: 400, nothing stored', async (t) => {
    const put = (payload: unknown, headers = {}) =>
      admin({ method: 'PUT', url: '/remote-config/bad.body', payload: payload as object, headers })
    assertError(t, await put({ value: 5 }), 400, 'VALIDATION_ERROR')
    assertError(t, await put({ value: null }), 400, 'VALIDATION_ERROR')
    assertError(t, await put({}), 400, 'VALIDATION_ERROR')
    assertError(t, await put({ value: 'x'.repeat(65_537) }), 400, 'VALIDATION_ERROR')
    assertError(
      t,
      await admin({
        method: 'PUT',
        url: '/remote-config/bad.body',
        headers: { 'content-type': 'application/json' },
        payload: '{"value":',
      }),
      400,
      'INVALID_JSON',
    )
    t.equal((await get('/remote-config/bad.body')).json().found, false)
    const big = await admin({ method: 'PUT', url: '/remote-config/big.value', payload: { value: '€'.repeat(65_536) } })
    t.equal(big.statusCode, 200, '65,536 characters of three bytes each fit')
    t.equal((await get('/remote-config/big.value')).json().configValue.length, 65_536)
    assertError(
      t,
      await call({ method: 'GET', url: '/remote-config/all', headers: { 'x-api-key': 'wrong-key-0123456789' } }),
      401,
      'UNAUTHORIZED',
    )
    assertError(
      t,
      await ctx.app.inject({ method: 'PUT', url: '/api/v1/admin/remote-config/x', payload: { value: 'x' } }),
      401,
      'UNAUTHORIZED',
    )
  })

  t.test('import: one transaction, all or nothing', async (t) => {
    const res = await importConfigs(ctx, { 'imp.a': '1', 'imp.b': '2', 'game.Speed': '3' })
    t.same(res, { imported: 3, configs: { 'imp.a': '1', 'imp.b': '2', 'game.Speed': '3' } })
    t.equal((await get('/remote-config/imp.b')).json().configValue, '2')
    t.equal((await get('/remote-config/game.Speed')).json().configValue, '3', 'existing keys are replaced')
    const before = (await get('/remote-config/all')).json()
    const imp = (configs: unknown) =>
      admin({ method: 'POST', url: '/remote-config/import', payload: { configs } as object })
    assertError(t, await imp({ 'imp.c': '1', 'bad key': '2' }), 400, 'VALIDATION_ERROR')
    assertError(t, await imp({ 'imp.c': '1', all: '2' }), 400, 'VALIDATION_ERROR')
    assertError(t, await imp({ 'imp.c': '1', 'imp.d': 2 }), 400, 'VALIDATION_ERROR')
    assertError(t, await imp({ 'imp.c': '1', 'imp.d': 'x'.repeat(65_537) }), 400, 'VALIDATION_ERROR')
    assertError(t, await imp(['imp.c']), 400, 'VALIDATION_ERROR')
    assertError(t, await admin({ method: 'POST', url: '/remote-config/import', payload: {} }), 400, 'VALIDATION_ERROR')
    t.same((await get('/remote-config/all')).json(), before, 'nothing stored')
    t.same(await importConfigs(ctx, {}), { imported: 0, configs: {} })
    const many = Object.fromEntries(Array.from({ length: 1200 }, (_, i) => [`bulk.k${i}`, `v${i}`]))
    t.equal((await importConfigs(ctx, many)).imported, 1200, 'more rows than one INSERT statement holds')
    t.equal((await get('/remote-config/filter?pattern=bulk.*')).json().total, 1200)
  })

  t.test('filter: match types and pattern rules', async (t) => {
    await importConfigs(ctx, {
      'ui.color': 'red',
      'ui.size': '3',
      'bg.color': 'blue',
      'main.menu.open': 'y',
      abxc: '1',
      axbyc: '2',
      ab: 'no',
    })
    const filter = async (pattern: string) =>
      (await get(`/remote-config/filter?pattern=${encodeURIComponent(pattern)}`)).json()
    t.same(await filter('ui.*'), {
      configs: { 'ui.color': 'red', 'ui.size': '3' },
      total: 2,
      pattern: 'ui.*',
      matchType: 'PREFIX',
    })
    t.match(await filter('ui.'), { total: 2, matchType: 'PREFIX' }, 'no wildcard is a prefix too')
    t.same(await filter('*.color'), {
      configs: { 'bg.color': 'blue', 'ui.color': 'red' },
      total: 2,
      pattern: '*.color',
      matchType: 'SUFFIX',
    })
    t.same(await filter('*menu*'), {
      configs: { 'main.menu.open': 'y' },
      total: 1,
      pattern: '*menu*',
      matchType: 'CONTAINS',
    })
    t.same(await filter('a*b*c'), { configs: { abxc: '1', axbyc: '2' }, total: 2, pattern: 'a*b*c', matchType: 'GLOB' })
    t.same((await filter('a*c')).configs, { abxc: '1', axbyc: '2' })
    t.same((await filter('u*.c*r')).configs, { 'ui.color': 'red' })
    t.same((await filter('*.Color')).total, 0, 'case-sensitive')
    t.same((await filter('a*x*y*z*q*w*e*r*t*y*u')).total, 0, 'ten wildcards')
    const bad = async (pattern: string) =>
      assertError(t, await get(`/remote-config/filter?pattern=${encodeURIComponent(pattern)}`), 400, 'VALIDATION_ERROR')
    await bad('**x')
    await bad('a**')
    await bad('*')
    await bad('a*b*c*d*e*f*g*h*i*j*k*l')
    await bad('x'.repeat(103))
    await bad('ui color')
    await bad('ui.$')
    await bad('')
    assertError(t, await get('/remote-config/filter'), 400, 'VALIDATION_ERROR')
    t.equal((await get(`/remote-config/filter?pattern=${'x'.repeat(102)}`)).statusCode, 200, '102 characters is fine')
    const slow = Date.now()
    await putConfig(ctx, 'a'.repeat(128), 'x')
    t.equal((await filter('a*a*a*a*a*a*a*a*a*b')).total, 0)
    t.ok(Date.now() - slow < 2000, 'a pathological pattern costs no backtracking')
  })

  t.test('ETag / If-None-Match on all three routes', async (t) => {
    for (const url of ['/remote-config/all', '/remote-config/ui.color', '/remote-config/filter?pattern=ui.*']) {
      const first = await get(url)
      const etag = first.headers.etag as string
      t.match(etag, /^"[A-Za-z0-9_-]+"$/, `${url} sends a strong ETag`)
      const again = await get(url, { 'if-none-match': etag })
      t.equal(again.statusCode, 304, `${url} 304`)
      t.equal(again.body, '', 'no body')
      t.equal(again.headers.etag, etag)
      t.equal((await get(url, { 'if-none-match': `W/${etag}, "other"` })).statusCode, 304, 'weak form in a list')
      t.equal((await get(url, { 'if-none-match': '"stale"' })).statusCode, 200)
    }
    const old = (await get('/remote-config/all')).headers.etag as string
    await putConfig(ctx, 'ui.color', 'green')
    const fresh = await get('/remote-config/all', { 'if-none-match': old })
    t.equal(fresh.statusCode, 200, 'a write changes the ETag')
    t.not(fresh.headers.etag, old)
    t.equal(fresh.json().configs['ui.color'], 'green')
  })

  t.test('admin list and delete', async (t) => {
    ctx.clock.advance(60_000)
    await putConfig(ctx, 'ui.color', 'latest')
    const page1 = await admin({ method: 'GET', url: '/remote-config?limit=2' })
    t.equal(page1.statusCode, 200)
    t.equal(page1.json().items.length, 2)
    t.equal(page1.json().items[0].configKey, 'ui.color', 'most recently changed first')
    const seen = new Set<string>(page1.json().items.map((i: { configKey: string }) => i.configKey))
    let cursor = page1.json().nextCursor
    for (let i = 0; cursor && i < 20; i++) {
      const next = (await admin({ method: 'GET', url: `/remote-config?limit=100&cursor=${cursor}` })).json()
      for (const item of next.items) seen.add(item.configKey)
      cursor = next.nextCursor
    }
    t.equal(seen.size, (await get('/remote-config/all')).json().total, 'paging visits every key once')
    assertError(t, await admin({ method: 'GET', url: '/remote-config?limit=0' }), 400, 'VALIDATION_ERROR')
    assertError(t, await admin({ method: 'GET', url: '/remote-config?cursor=nonsense' }), 400, 'VALIDATION_ERROR')
    const del = await admin({
      method: 'DELETE',
      url: '/remote-config/ui.color',
      headers: { 'content-type': 'application/json' },
    })
    t.same(del.json(), { configKey: 'ui.color', deleted: true })
    t.same((await get('/remote-config/ui.color')).json(), { configKey: 'ui.color', configValue: null, found: false })
    assertError(t, await admin({ method: 'DELETE', url: '/remote-config/ui.color' }), 404, 'NOT_FOUND')
  })

  t.test('races: concurrent writes all land, and reads during them never fail', async (t) => {
    const writes = Array.from({ length: 12 }, (_, i) =>
      i % 3 === 0
        ? admin({
            method: 'POST',
            url: '/remote-config/import',
            payload: { configs: { 'race.shared': `i${i}`, [`race.k${i}`]: `${i}` } },
          })
        : admin({ method: 'PUT', url: `/remote-config/race.k${i}`, payload: { value: `${i}` } }),
    )
    const reads = Array.from({ length: 12 }, () => get('/remote-config/all'))
    const results = await Promise.all([...writes, ...reads])
    t.same(
      results.map((r) => r.statusCode),
      results.map(() => 200),
      'no 5xx under concurrency',
    )
    const configs = (await get('/remote-config/filter?pattern=race.k*')).json().configs
    t.same(Object.keys(configs).length, 12)
    t.match((await get('/remote-config/race.shared')).json().configValue, /^i\d+$/)
  })

  t.test('the cache serves without a database round trip until the version moves', async (t) => {
    const db = ctx.app.db
    await putConfig(ctx, 'cache.probe', 'v1')
    t.equal((await get('/remote-config/cache.probe')).json().configValue, 'v1')
    // A change behind the app's back (no version bump) is not seen: answers come from memory...
    await db.updateTable('remote_configs').set({ config_value: 'v2' }).where('config_key', '=', 'cache.probe').execute()
    ctx.clock.advance(CONTENT_CHECK_INTERVAL_MS * 5)
    t.equal(
      (await get('/remote-config/cache.probe')).json().configValue,
      'v1',
      'served from memory while the version stands',
    )
    // ...until the counter moves, as every admin write (on any instance) moves it.
    await db
      .updateTable('content_versions')
      .set({ version: sql`version + 1` })
      .where('feature', '=', 'remote-config')
      .execute()
    t.equal((await get('/remote-config/cache.probe')).json().configValue, 'v1', 'within the interval: still the copy')
    ctx.clock.advance(CONTENT_CHECK_INTERVAL_MS)
    t.equal((await get('/remote-config/cache.probe')).json().configValue, 'v2', 'after the interval: reloaded')
  })
})

eachDialect(t, async (t, dialect) => {
  t.test("two instances on one database: B sees A's writes within the check interval", async (t) => {
    const dbEnv = await freshDatabase(t, dialect)
    const a = await buildTestApp(t, dialect, { dbEnv })
    const b = await buildTestApp(t, dialect, { dbEnv })
    const onB = (url: string) => b.call({ method: 'GET', url })
    t.same((await onB('/remote-config/all')).json(), { configs: {}, total: 0 }, 'B caches the empty state')
    const etag = (await onB('/remote-config/all')).headers.etag
    await putConfig(a, 'shared.key', 'from A')
    t.equal(
      (await a.call({ method: 'GET', url: '/remote-config/shared.key' })).json().configValue,
      'from A',
      'A at once',
    )
    b.clock.advance(CONTENT_CHECK_INTERVAL_MS - 1)
    t.equal((await onB('/remote-config/shared.key')).json().found, false, 'B inside the interval: its copy')
    b.clock.advance(1)
    t.same(
      (await onB('/remote-config/shared.key')).json(),
      { configKey: 'shared.key', configValue: 'from A', found: true },
      'B after the interval',
    )
    const after = await b.call({ method: 'GET', url: '/remote-config/all', headers: { 'if-none-match': etag } })
    t.equal(after.statusCode, 200, 'the old ETag no longer matches on B')
    t.equal(
      after.headers.etag,
      (await a.call({ method: 'GET', url: '/remote-config/all' })).headers.etag,
      'same content, same ETag on both',
    )
    await a.admin({ method: 'DELETE', url: '/remote-config/shared.key' })
    b.clock.advance(CONTENT_CHECK_INTERVAL_MS)
    t.equal((await onB('/remote-config/shared.key')).json().found, false, 'a delete travels the same way')
  })
})

t.test('content cache: one refresh for concurrent readers; an overlapping local write is never lost', async (t) => {
  const ctx = await buildTestApp(t, 'sqlite')
  const db = ctx.app.db
  let loads = 0
  const gates: Array<() => void> = []
  let gated = false
  const cache = new ContentCache(db, ctx.clock, 'remote-config', async () => {
    const n = ++loads
    if (gated) await new Promise<void>((resolve) => gates.push(resolve))
    return n
  })
  const values = await Promise.all(Array.from({ length: 20 }, () => cache.get()))
  t.same(new Set(values), new Set([1]), 'twenty readers, one load')
  t.equal(await cache.get(), 1, 'fresh: no database read at all')

  gated = true
  await bumpChangeCounter(db, 'remote-config')
  cache.invalidate()
  const first = cache.get() // begins a refresh that will finish last
  await new Promise((resolve) => setTimeout(resolve, 20))
  await bumpChangeCounter(db, 'remote-config')
  cache.invalidate()
  const second = cache.get() // a write happened after `first` began: a refresh of its own
  await new Promise((resolve) => setTimeout(resolve, 20))
  t.equal(gates.length, 2, 'two refreshes in flight')
  gates[1]!()
  t.equal(await second, 3)
  gates[0]!()
  t.equal(await first, 2, 'the older refresh answers its own readers...')
  gated = false
  t.equal(await cache.get(), 3, '...but does not replace the newer copy')
  t.equal(loads, 3)

  ctx.clock.advance(-1)
  t.equal(await cache.get(), 3, 'a clock that went back re-checks the counter (unchanged: no reload)')
  t.equal(loads, 3)
})
