import { request } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { API_KEY, APP, assertError, buildTestApp, eachDialect } from './helpers/app.js'
import { bearer, createUser } from './fixtures/users.js'
import { LOAD, SAVE, awkwardBytes, godot, loadJson, saveJson, unity, unreal } from './fixtures/cloud-save.js'

const UNKNOWN_USER = '7d1e0f9a-3b2c-4d5e-8f60-718293a4b5c6'
const MAX = 300_000
const OCTET = 'application/octet-stream'

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  const { call, admin, clock, app } = ctx
  const at = () => new Date(clock.now()).toISOString()
  const stored = (userId: string) =>
    app.db.selectFrom('cloud_saves').selectAll().where('user_id', '=', userId).executeTakeFirst()

  t.test('JSON save and load as the Unity, Godot and Unreal SDKs send them', async (t) => {
    const user = await createUser(ctx)
    const text = '{"level":5,"coins":100,"name":"Jörg 🎮"}'
    const first = await unity.save(ctx, user, text)
    t.equal(first.statusCode, 200)
    t.same(first.json(), {
      success: true,
      dataSizeBytes: Buffer.byteLength(text),
      version: 1,
      revision: 1,
      updatedAt: '2026-11-22T10:00:00.000Z',
    })
    t.equal(first.json().dataSizeBytes, text.length + 3, 'UTF-8 bytes, not UTF-16 units (ö: 2, 🎮: 4)')
    t.equal(first.headers['x-cloud-save-revision'], '1')

    for (const load of [unity.load(ctx, user), godot.load(ctx, user), unreal.load(ctx, user)]) {
      const res = await load
      t.equal(res.statusCode, 200)
      t.match(res.headers['content-type'], /^application\/json/)
      t.same(res.json(), { found: true, data: text, saveData: text, version: 1, updatedAt: '2026-11-22T10:00:00.000Z' })
      t.equal(res.headers['x-cloud-save-revision'], '1')
      t.notMatch(res.body, /": /, 'compact JSON')
    }
    const viaGet = await call({ method: 'GET', url: `${LOAD}?userId=${user.userId}` })
    t.same(viaGet.json(), (await godot.load(ctx, user)).json(), 'GET ?userId= answers the same')

    clock.advance(1000)
    t.equal((await godot.save(ctx, user, 'second')).json().version, 2, 'Godot form (no bearer)')
    clock.advance(1000)
    const third = await unreal.save(ctx, user, 'third')
    t.same(third.json(), {
      success: true,
      dataSizeBytes: 5,
      version: 3,
      revision: 3,
      updatedAt: '2026-11-22T10:00:02.000Z',
    })
    t.same((await unity.load(ctx, user)).json(), {
      found: true,
      data: 'third',
      saveData: 'third',
      version: 3,
      updatedAt: '2026-11-22T10:00:02.000Z',
    })
    const row = await stored(user.userId)
    t.equal(row!.is_binary, 0)
    t.equal(row!.size_bytes, 5)
    t.equal(row!.created_at, Date.parse('2026-11-22T10:00:00.000Z'), 'created_at kept by the upsert')
  })

  t.test('data (seed form) and saveData (compat): data wins, strings only, never parsed', async (t) => {
    const user = await createUser(ctx)
    const save = (body: Record<string, unknown>) => saveJson(ctx, { userId: user.userId, ...body })
    t.equal((await save({ data: 'seed' })).json().version, 1)
    t.equal((await loadJson(ctx, user.userId)).json().saveData, 'seed')
    t.equal((await save({ data: 'from-data', saveData: 'from-saveData' })).statusCode, 200)
    t.equal((await loadJson(ctx, user.userId)).json().data, 'from-data', 'data wins')
    t.equal((await save({ data: null, saveData: 'compat' })).statusCode, 200)
    t.equal((await loadJson(ctx, user.userId)).json().data, 'compat', 'data: null counts as absent')
    const notJson = '{not json at all'
    t.equal((await save({ saveData: notJson })).statusCode, 200)
    t.equal((await loadJson(ctx, user.userId)).json().data, notJson, 'stored as given, not parsed')
    const escaped = 'line\nbreak\t"quoted" \\ \u0001 \u2028 é'
    t.equal((await save({ data: escaped })).json().dataSizeBytes, Buffer.byteLength(escaped))
    t.equal((await loadJson(ctx, user.userId)).json().data, escaped, 'escapes round-trip')

    const before = await stored(user.userId)
    for (const [body, label] of [
      [{ data: 42 }, 'a number'],
      [{ data: { level: 1 } }, 'an object'],
      [{ saveData: ['a'] }, 'an array'],
      [{ saveData: true }, 'a boolean'],
      [{}, 'missing'],
      [{ data: '' }, 'empty string (absent)'],
      [{ data: 'x', expectedVersion: '5' }, 'expectedVersion as a string'],
      [{ data: 'x', expectedVersion: -1 }, 'negative expectedVersion'],
      [{ data: 'x', expectedVersion: 1.5 }, 'fractional expectedVersion'],
    ] as const) {
      const res = await save(body)
      assertError(t, res, 400, 'VALIDATION_ERROR')
      t.ok(res.json().message, label)
    }
    assertError(t, await saveJson(ctx, { userId: 'not-a-uuid', data: 'x' }), 400, 'VALIDATION_ERROR')
    assertError(t, await saveJson(ctx, { userId: 17, data: 'x' }), 400, 'VALIDATION_ERROR')
    assertError(t, await saveJson(ctx, { data: 'x' }), 400, 'VALIDATION_ERROR')
    const malformed = await call({
      method: 'POST',
      url: SAVE,
      headers: { 'content-type': 'application/json' },
      payload: '{"userId": "',
    })
    assertError(t, malformed, 400, 'INVALID_JSON')
    const textPlain = await call({
      method: 'POST',
      url: SAVE,
      headers: { 'content-type': 'text/plain' },
      payload: 'hello',
    })
    assertError(t, textPlain, 415, 'UNSUPPORTED_MEDIA_TYPE')
    t.same(await stored(user.userId), before, 'nothing stored by a refused save')
  })

  t.test('identity: unknown, banned, foreign session; load of an unknown user is found: false', async (t) => {
    const user = await createUser(ctx)
    const other = await createUser(ctx)
    assertError(t, await saveJson(ctx, { userId: UNKNOWN_USER, data: 'x' }), 404, 'USER_NOT_FOUND')
    const unknownLoad = await loadJson(ctx, UNKNOWN_USER)
    t.equal(unknownLoad.statusCode, 200)
    t.same(unknownLoad.json(), { found: false, data: null, saveData: null })
    t.equal(unknownLoad.headers['x-cloud-save-revision'], '0')
    t.same((await call({ method: 'GET', url: `${LOAD}?userId=${UNKNOWN_USER}` })).json(), {
      found: false,
      data: null,
      saveData: null,
    })
    const unknownBytes = await godot.loadBytes(ctx, UNKNOWN_USER)
    t.equal(unknownBytes.statusCode, 204)
    t.equal(unknownBytes.body, '')

    t.same((await godot.load(ctx, user)).json(), { found: false, data: null, saveData: null }, 'known user, no save')
    assertError(t, await loadJson(ctx, 'nope'), 400, 'VALIDATION_ERROR')
    assertError(t, await call({ method: 'GET', url: `${LOAD}?userId=nope` }), 400, 'VALIDATION_ERROR')
    assertError(t, await call({ method: 'GET', url: LOAD }), 400, 'VALIDATION_ERROR')
    assertError(
      t,
      await call({ method: 'POST', url: LOAD, headers: { 'content-type': 'application/json' } }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(
      t,
      await call({ method: 'POST', url: LOAD, headers: { 'content-type': 'application/json' }, payload: '{' }),
      400,
      'INVALID_JSON',
    )

    const foreign = { ...bearer(other) }
    assertError(t, await saveJson(ctx, { userId: user.userId, data: 'x' }, foreign), 403, 'SESSION_FORBIDDEN')
    assertError(
      t,
      await call({ method: 'POST', url: LOAD, headers: foreign, payload: { userId: user.userId } }),
      403,
      'SESSION_FORBIDDEN',
    )
    assertError(
      t,
      await call({ method: 'POST', url: LOAD, headers: foreign, payload: { userId: UNKNOWN_USER } }),
      403,
      'SESSION_FORBIDDEN',
    )
    const forged = { authorization: 'Bearer forged' }
    assertError(t, await saveJson(ctx, { userId: user.userId, data: 'x' }, forged), 401, 'SESSION_REQUIRED')
    assertError(
      t,
      await call({ method: 'GET', url: `${LOAD}?userId=${UNKNOWN_USER}`, headers: forged }),
      401,
      'SESSION_REQUIRED',
    )
    const noKey = await app.inject({ method: 'POST', url: `${APP}${LOAD}`, payload: { userId: user.userId } })
    assertError(t, noKey, 401, 'UNAUTHORIZED')

    t.equal((await godot.save(ctx, user, 'kept')).statusCode, 200)
    t.equal((await admin({ method: 'POST', url: `/users/${user.userId}/ban`, payload: {} })).statusCode, 200)
    assertError(t, await godot.save(ctx, user, 'x'), 403, 'USER_BANNED')
    assertError(t, await godot.load(ctx, user), 403, 'USER_BANNED')
    assertError(t, await godot.loadBytes(ctx, user.userId), 403, 'USER_BANNED')
    t.equal((await admin({ method: 'POST', url: `/users/${user.userId}/unban`, payload: {} })).statusCode, 200)
    t.equal((await godot.load(ctx, user)).json().data, 'kept')
    t.equal((await stored(user.userId))!.version, 1)
  })

  t.test('expectedVersion: 0 means no save yet; a stale one is 409 with currentVersion', async (t) => {
    const user = await createUser(ctx)
    const save = (data: string, expectedVersion?: unknown) =>
      saveJson(ctx, { userId: user.userId, data, expectedVersion })
    const stale = await save('a', 3)
    assertError(t, stale, 409, 'CONFLICT')
    t.equal(stale.json().currentVersion, 0)
    t.equal(await stored(user.userId), undefined, 'nothing stored')
    t.equal((await save('a', 0)).json().version, 1)
    const again = await save('b', 0)
    assertError(t, again, 409, 'CONFLICT')
    t.equal(again.json().currentVersion, 1)
    t.equal(again.headers['x-cloud-save-revision'], '1')
    t.equal((await save('b', 1)).json().version, 2)
    t.equal((await save('c', null)).json().version, 3, 'null: unconditional')
    const old = await save('d', 2)
    assertError(t, old, 409, 'CONFLICT')
    t.equal(old.json().currentVersion, 3)
    t.match(old.json().message, /version 3/)
    const row = await stored(user.userId)
    t.equal(row!.data.toString('utf8'), 'c', 'the stored save is untouched by a conflict')
    t.equal(row!.version, 3)
  })

  t.test('If-Match and ?expectedVersion (the Unity SDK conditional save; binary mode)', async (t) => {
    const user = await createUser(ctx)
    t.same((await unity.save(ctx, user, 'one', { 'if-match': '0' })).json().revision, 1)
    const conflict = await unity.save(ctx, user, 'two', { 'if-match': '0' })
    assertError(t, conflict, 409, 'CONFLICT')
    t.equal(conflict.json().currentVersion, 1)
    t.equal(
      (await unity.saveBytes(ctx, user, Buffer.from([1, 2]), { 'if-match': '"1"' })).json().version,
      2,
      'quoted ETag form',
    )
    assertError(t, await unity.saveBytes(ctx, user, Buffer.from([3]), { 'if-match': '1' }), 409, 'CONFLICT')
    const viaQuery = await call({
      method: 'POST',
      url: `${SAVE}?userId=${user.userId}&expectedVersion=2`,
      headers: { 'content-type': OCTET },
      payload: Buffer.from([4]),
    })
    t.equal(viaQuery.json().version, 3)
    assertError(t, await unity.save(ctx, user, 'x', { 'if-match': '*' }), 400, 'VALIDATION_ERROR')
    assertError(t, await unity.save(ctx, user, 'x', { 'if-match': 'abc' }), 400, 'VALIDATION_ERROR')
    const disagree = await saveJson(ctx, { userId: user.userId, data: 'x', expectedVersion: 3 }, { 'if-match': '2' })
    assertError(t, disagree, 400, 'VALIDATION_ERROR')
    t.equal(
      (await saveJson(ctx, { userId: user.userId, data: 'x', expectedVersion: 3 }, { 'if-match': '3' })).json().version,
      4,
      'agreeing',
    )
    const snapshot = await unity.loadBytes(ctx, user)
    t.equal(snapshot.headers['x-cloud-save-revision'], '4')
  })

  t.test(
    'concurrent saves: exactly one of those expecting one version wins; unconditional ones all count',
    async (t) => {
      const user = await createUser(ctx)
      const fresh = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          saveJson(ctx, { userId: user.userId, data: `first-${i}`, expectedVersion: 0 }),
        ),
      )
      t.same(fresh.map((r) => r.statusCode).sort(), [200, ...Array(9).fill(409)], 'one insert wins')
      for (const r of fresh.filter((r) => r.statusCode === 409)) t.equal(r.json().currentVersion, 1)
      const winner = fresh.findIndex((r) => r.statusCode === 200)
      t.equal((await stored(user.userId))!.data.toString(), `first-${winner}`)

      const racing = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          saveJson(ctx, { userId: user.userId, data: `second-${i}`, expectedVersion: 1 }),
        ),
      )
      t.same(racing.map((r) => r.statusCode).sort(), [200, ...Array(9).fill(409)], 'one update wins')
      const won = racing.findIndex((r) => r.statusCode === 200)
      t.equal(racing[won]!.json().version, 2)
      const row = await stored(user.userId)
      t.equal(row!.data.toString(), `second-${won}`)
      t.equal(row!.version, 2)

      const blind = await Promise.all(Array.from({ length: 20 }, (_, i) => godot.save(ctx, user, `blind-${i}`)))
      t.ok(blind.every((r) => r.statusCode === 200))
      t.same(
        blind.map((r) => r.json().version).sort((a, b) => a - b),
        Array.from({ length: 20 }, (_, i) => i + 3),
        'each save its own version',
      )
      t.equal((await stored(user.userId))!.version, 22)

      const newcomer = await createUser(ctx)
      const firstSaves = await Promise.all(Array.from({ length: 10 }, (_, i) => godot.save(ctx, newcomer, `n-${i}`)))
      t.same(
        firstSaves.map((r) => r.json().version).sort((a, b) => a - b),
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
        'racing first saves',
      )
    },
  )

  t.test('size: CLOUD_SAVE_MAX_BYTES counts UTF-8 bytes; 300,001 bytes is 413 and the old save stays', async (t) => {
    const user = await createUser(ctx)
    const atLimit = 'a'.repeat(MAX)
    const ok = await godot.save(ctx, user, atLimit)
    t.equal(ok.statusCode, 200)
    t.equal(ok.json().dataSizeBytes, MAX)

    const over = await godot.save(ctx, user, 'b'.repeat(MAX + 1))
    assertError(t, over, 413, 'PAYLOAD_TOO_LARGE')
    t.equal(over.json().maxBytes, MAX)
    const euro = await godot.save(ctx, user, '€'.repeat(100_001))
    assertError(t, euro, 413, 'PAYLOAD_TOO_LARGE')
    t.match(euro.json().message, /300003 bytes/, 'counted in UTF-8 bytes, not characters')
    const bytesOver = await unity.saveBytes(ctx, user, Buffer.alloc(MAX + 1, 7))
    assertError(t, bytesOver, 413, 'PAYLOAD_TOO_LARGE')
    const heavilyEscaped = await godot.save(ctx, user, '\u0001'.repeat(MAX))
    t.equal(heavilyEscaped.statusCode, 200, 'a save at the limit passes the body limit whatever its JSON escaping')
    t.equal(heavilyEscaped.json().version, 2)

    const row = await stored(user.userId)
    t.equal(row!.version, 2)
    t.equal(row!.size_bytes, MAX)
    t.ok(row!.data.equals(Buffer.alloc(MAX, 1)), 'the stored save is the last accepted one')
    const loaded = await godot.load(ctx, user)
    t.equal(loaded.json().data.length, MAX)
    t.equal(loaded.json().version, 2)
    t.equal((await godot.saveBytes(ctx, user, Buffer.alloc(MAX, 9))).statusCode, 200, 'binary at the limit')
  })

  t.test('body limits refuse oversize bodies before they are read whole, in the shared error shape', async (t) => {
    const user = await createUser(ctx)
    await godot.save(ctx, user, 'keep me')
    const hugeJson = JSON.stringify({ userId: user.userId, data: 'x'.repeat(6 * MAX + 64 * 1024) })
    assertError(
      t,
      await call({ method: 'POST', url: SAVE, headers: { 'content-type': 'application/json' }, payload: hugeJson }),
      413,
      'PAYLOAD_TOO_LARGE',
    )
    // The limit is read from Content-Length before any byte of the body.
    const declared = await call({
      method: 'POST',
      url: `${SAVE}?userId=${user.userId}`,
      headers: { 'content-type': OCTET, 'content-length': String(MAX + 1) },
      payload: Buffer.alloc(10),
    })
    assertError(t, declared, 413, 'PAYLOAD_TOO_LARGE')
    t.equal((await godot.load(ctx, user)).json().data, 'keep me')
    t.equal((await stored(user.userId))!.version, 1)
  })

  t.test('binary round trip is byte-exact both ways, as every SDK loads it', async (t) => {
    const user = await createUser(ctx)
    const bytes = awkwardBytes()
    const saved = await unity.saveBytes(ctx, user, bytes)
    t.equal(saved.statusCode, 200)
    t.same(saved.json(), { success: true, dataSizeBytes: bytes.length, version: 1, revision: 1, updatedAt: at() })
    const row = await stored(user.userId)
    t.equal(row!.is_binary, 1)
    t.ok(row!.data.equals(bytes), 'stored byte-exact')

    for (const [label, load] of [
      ['Unity POST + Accept', unity.loadBytes(ctx, user)],
      ['Unreal POST + Accept', unreal.loadBytes(ctx, user)],
      ['Godot GET + Accept', godot.loadBytes(ctx, user.userId)],
      ['Unreal GET with Content-Type octet-stream', unreal.getBytes(ctx, user)],
    ] as const) {
      const res = await load
      t.equal(res.statusCode, 200, label)
      t.equal(res.headers['content-type'], OCTET, label)
      t.ok(res.rawPayload.equals(bytes), `${label}: byte-exact`)
      t.equal(res.headers['x-cloud-save-revision'], '1')
    }
    const asJson = await unity.load(ctx, user)
    t.same(asJson.json(), {
      found: true,
      data: bytes.toString('base64'),
      saveData: bytes.toString('base64'),
      encoding: 'base64',
      version: 1,
      updatedAt: at(),
    })
    t.ok(Buffer.from(asJson.json().saveData, 'base64').equals(bytes), 'base64 decodes to the bytes')

    const godotUser = await createUser(ctx)
    t.equal((await godot.saveBytes(ctx, godotUser, bytes)).statusCode, 200, 'Godot octet-stream save (no bearer)')
    t.ok((await godot.loadBytes(ctx, godotUser.userId)).rawPayload.equals(bytes))
    const unrealUser = await createUser(ctx)
    t.equal((await unreal.saveBytes(ctx, unrealUser, Buffer.from('valid utf-8 ✓'))).statusCode, 200)
    const stillBinary = await unreal.load(ctx, unrealUser)
    t.equal(stillBinary.json().encoding, 'base64', 'a binary save stays binary even when its bytes are UTF-8')
    t.equal(Buffer.from(stillBinary.json().data, 'base64').toString(), 'valid utf-8 ✓')
  })

  t.test('a text save loads as its UTF-8 bytes; no save is 204; an empty binary save is refused', async (t) => {
    const user = await createUser(ctx)
    const none = await unity.loadBytes(ctx, user)
    t.equal(none.statusCode, 204)
    t.equal(none.rawPayload.length, 0)
    t.equal(none.headers['x-cloud-save-revision'], '0')
    t.equal((await godot.loadBytes(ctx, user.userId)).statusCode, 204)
    t.equal((await unreal.getBytes(ctx, user)).statusCode, 204)

    const text = 'Grüße 👋 {"a":1}'
    await godot.save(ctx, user, text)
    const bytes = await godot.loadBytes(ctx, user.userId)
    t.equal(bytes.statusCode, 200)
    t.ok(bytes.rawPayload.equals(Buffer.from(text, 'utf8')))
    t.equal((await godot.load(ctx, user)).json().encoding, undefined, 'text saves carry no encoding')
    const both = await call({
      method: 'GET',
      url: `${LOAD}?userId=${user.userId}`,
      headers: { accept: `application/json, ${OCTET}` },
    })
    t.equal(both.json().data, text, 'JSON wins when the client accepts both')

    assertError(t, await godot.saveBytes(ctx, user, Buffer.alloc(0)), 400, 'VALIDATION_ERROR')
    assertError(
      t,
      await call({ method: 'POST', url: SAVE, headers: { 'content-type': OCTET }, payload: Buffer.from([1]) }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(
      t,
      await call({
        method: 'POST',
        url: `${SAVE}?userId=bad`,
        headers: { 'content-type': OCTET },
        payload: Buffer.from([1]),
      }),
      400,
      'VALIDATION_ERROR',
    )
    t.equal((await godot.load(ctx, user)).json().data, text)
  })

  t.test('deleting the user erases the save', async (t) => {
    const user = await createUser(ctx)
    await godot.save(ctx, user, 'bye')
    t.equal((await admin({ method: 'DELETE', url: `/users/${user.userId}` })).statusCode, 200)
    t.equal(await stored(user.userId), undefined)
    t.same((await godot.load(ctx, user)).json(), { found: false, data: null, saveData: null })
  })

  t.test('the routes are in the OpenAPI document under Cloud Save', async (t) => {
    const doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json()
    for (const [path, method] of [
      [SAVE, 'post'],
      [LOAD, 'post'],
      [LOAD, 'get'],
    ] as const) {
      const op = doc.paths[`${APP}${path}`][method]
      t.same(op.tags, ['Cloud Save'], `${method} ${path}`)
      t.ok(op.summary)
    }
    t.ok(doc.paths[`${APP}${LOAD}`].get.responses['200'].content[OCTET], 'binary load documented')
  })
})

eachDialect(t, async (t, dialect) => {
  t.test("strict mode: loads and saves need the user's bearer", async (t) => {
    const ctx = await buildTestApp(t, dialect, { env: { AUTH_MODE: 'strict' } })
    const user = await createUser(ctx)
    assertError(t, await godot.save(ctx, user, 'x'), 401, 'SESSION_REQUIRED')
    assertError(t, await godot.load(ctx, user), 401, 'SESSION_REQUIRED')
    assertError(t, await loadJson(ctx, UNKNOWN_USER), 401, 'SESSION_REQUIRED')
    t.equal((await unity.save(ctx, user, 'x')).statusCode, 200)
    t.equal((await unity.load(ctx, user)).json().data, 'x')
  })

  t.test('a smaller CLOUD_SAVE_MAX_BYTES sets both body limits', async (t) => {
    const ctx = await buildTestApp(t, dialect, { env: { CLOUD_SAVE_MAX_BYTES: '100' } })
    const user = await createUser(ctx)
    t.equal((await unity.saveBytes(ctx, user, Buffer.alloc(100))).statusCode, 200)
    assertError(t, await unity.saveBytes(ctx, user, Buffer.alloc(101)), 413, 'PAYLOAD_TOO_LARGE')
    assertError(t, await unity.save(ctx, user, 'x'.repeat(101)), 413, 'PAYLOAD_TOO_LARGE')
    const overJsonLimit = JSON.stringify({ userId: user.userId, data: 'x'.repeat(700 + 64 * 1024) })
    const res = await ctx.call({
      method: 'POST',
      url: SAVE,
      headers: { 'content-type': 'application/json' },
      payload: overJsonLimit,
    })
    assertError(t, res, 413, 'PAYLOAD_TOO_LARGE')
    t.equal((await godot.load(ctx, user)).json().version, 1)
  })

  t.test('over a real socket: a chunked octet-stream body is cut off once it passes the limit', async (t) => {
    const ctx = await buildTestApp(t, dialect, { env: { CLOUD_SAVE_MAX_BYTES: '100' } })
    const user = await createUser(ctx)
    await ctx.app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = ctx.app.server.address() as AddressInfo
    const send = (chunks: Buffer[]) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: `${APP}${SAVE}?userId=${user.userId}`,
            headers: { 'x-api-key': API_KEY, 'content-type': OCTET },
          },
          (res) => {
            let body = ''
            res.setEncoding('utf8')
            res.on('data', (c: string) => (body += c))
            res.on('end', () => resolve({ status: res.statusCode!, body }))
          },
        )
        req.on('error', reject)
        // No Content-Length: the body arrives chunked, so only counting while it streams can stop it.
        for (const chunk of chunks) req.write(chunk)
        req.end()
      })
    const ok = await send([Buffer.alloc(60, 1), Buffer.alloc(40, 2)])
    t.equal(ok.status, 200)
    t.equal(JSON.parse(ok.body).dataSizeBytes, 100)
    const over = await send([Buffer.alloc(60, 3), Buffer.alloc(41, 4)])
    t.equal(over.status, 413)
    t.equal(JSON.parse(over.body).code, 'PAYLOAD_TOO_LARGE')
    const row = await ctx.app.db
      .selectFrom('cloud_saves')
      .select(['data', 'version'])
      .where('user_id', '=', user.userId)
      .executeTakeFirst()
    t.equal(row!.version, 1)
    t.ok(row!.data.equals(Buffer.concat([Buffer.alloc(60, 1), Buffer.alloc(40, 2)])))
  })
})
