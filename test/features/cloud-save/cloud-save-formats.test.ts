// Cloud saves in the forms the SDKs send and load them: JSON with `data` or `saveData` (never parsed),
// binary octet-stream saves byte-exact both ways, a text save loaded as its UTF-8 bytes.
import t from 'tap'
import { APP, assertError, buildTestApp, eachDialect } from '../../helpers/app.js'
import { createUser } from '../../fixtures/users.js'
import {
  LOAD,
  OCTET,
  SAVE,
  awkwardBytes,
  godot,
  loadJson,
  saveJson,
  storedSave,
  unity,
  unreal,
} from '../../fixtures/cloud-save.js'

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  const { call, clock, app } = ctx
  const at = () => new Date(clock.now()).toISOString()
  const stored = (userId: string) => storedSave(ctx, userId)

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
