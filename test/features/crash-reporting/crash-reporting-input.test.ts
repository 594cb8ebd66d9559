import t from 'tap'
import { assertError, buildTestApp, eachDialect } from '../../helpers/app.js'
import { createUser } from '../../fixtures/users.js'
import { CREATE, crashReads, report } from '../../fixtures/crash-reporting.js'

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  const { reportRow, countReports } = crashReads(ctx)

  t.test('leniency: only type is needed; nulls, "", non-UUID users and odd values are kept', async (t) => {
    const bare = await report(ctx, {})
    t.equal(bare.statusCode, 201)
    t.match(await reportRow(bare.json().id), {
      message: '',
      stack_trace: '',
      app_version: '',
      sdk_version: '',
      platform: '',
      os: '',
      device_model: '',
      user_id: '',
      device_memory_mb: null,
      breadcrumbs: '[]',
      custom_keys: '{}',
    })
    const nulls = await report(ctx, {
      type: 'ANR',
      message: null,
      stackTrace: null,
      fingerprint: null,
      appVersion: null,
      sessionId: null,
      userId: null,
      deviceMemoryMb: null,
      breadcrumbs: null,
      customKeys: null,
      unknownField: 'ignored',
    })
    t.equal(nulls.statusCode, 201)
    const odd = await report(ctx, {
      userId: 'player#42',
      deviceMemoryMb: 2048.6,
      customKeys: { n: 5, flag: true, obj: { a: [1, 2] }, nothing: null, s: 'x' },
      breadcrumbs: [{ timestamp: 1795341600, message: 'epoch seconds' }, {}],
    })
    t.equal(odd.statusCode, 201)
    const row = await reportRow(odd.json().id)
    t.equal(row.user_id, 'player#42')
    t.equal(Number(row.device_memory_mb), 2049)
    t.same(JSON.parse(row.custom_keys), { n: '5', flag: 'true', obj: '{"a":[1,2]}', nothing: 'null', s: 'x' })
    t.same(JSON.parse(row.breadcrumbs), [
      { timestamp: '1795341600', type: '', message: 'epoch seconds' },
      { timestamp: '', type: '', message: '' },
    ])
    const upper = await createUser(ctx)
    const byUpper = await report(ctx, { userId: upper.userId.toUpperCase() })
    // A UUID in any case links to the user and is kept in lower case, so the player counts once.
    t.match(await reportRow(byUpper.json().id), { linked_user_id: upper.userId, user_id: upper.userId })
    const unknownUuid = await report(ctx, { userId: '7d1e0f9a-3b2c-4d5e-8f60-718293a4b5c6' })
    t.match(await reportRow(unknownUuid.json().id), {
      linked_user_id: null,
      user_id: '7d1e0f9a-3b2c-4d5e-8f60-718293a4b5c6',
    })
  })

  t.test('over-long fields are truncated and flagged, not refused', async (t) => {
    const crumbs = Array.from({ length: 150 }, (_, i) => ({ timestamp: `t${i}`, type: 'log', message: `m${i}` }))
    const keys = Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`k${String(i).padStart(2, '0')}`, `v${i}`]))
    const res = await report(ctx, {
      message: '🎮'.repeat(8_200),
      stackTrace: 'x'.repeat(70_000),
      breadcrumbs: crumbs,
      customKeys: keys,
      userId: 'u'.repeat(200),
      appVersion: '9'.repeat(300),
      fingerprint: 'f'.repeat(300),
    })
    t.equal(res.statusCode, 201)
    t.equal(res.json().truncated, true)
    const row = await reportRow(res.json().id)
    t.equal(row.message, '🎮'.repeat(8_192), '8,192 characters, not UTF-16 units')
    t.equal(row.stack_trace.length, 65_536)
    const stored = JSON.parse(row.breadcrumbs)
    t.equal(stored.length, 100)
    t.same(stored[0], { timestamp: 't50', type: 'log', message: 'm50' }, 'the last 100 are kept')
    t.equal(Object.keys(JSON.parse(row.custom_keys)).length, 64)
    t.equal(row.user_id.length, 128)
    t.equal(row.app_version.length, 128)
    t.match(row.fingerprint, /^[0-9a-f]{64}$/, 'a fingerprint too long for the key is hashed')

    for (const [field, value] of [
      ['message', 'm'.repeat(8_193)],
      ['stackTrace', 's'.repeat(65_537)],
      ['breadcrumbs', crumbs.slice(0, 101)],
      ['customKeys', Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, '']))],
    ] as const) {
      t.equal((await report(ctx, { [field]: value })).json().truncated, true, `${field} one over`)
    }
    for (const [field, value] of [
      ['message', 'm'.repeat(8_192)],
      ['stackTrace', 's'.repeat(65_536)],
      ['breadcrumbs', crumbs.slice(0, 100)],
      ['customKeys', Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`k${i}`, '']))],
    ] as const) {
      t.equal((await report(ctx, { [field]: value })).json().truncated, false, `${field} at the limit`)
    }
  })

  t.test('refused: missing or wrong type, wrongly typed fields, malformed JSON, over 256 KiB', async (t) => {
    const before = await countReports()
    assertError(
      t,
      await ctx.call({ method: 'POST', url: CREATE, payload: { message: 'no type' } }),
      400,
      'VALIDATION_ERROR',
    )
    const wrong = assertError(t, await report(ctx, { type: 'FATAL' }), 400, 'VALIDATION_ERROR')
    t.match(wrong.message, /CRASH, NON_FATAL, ANR/)
    assertError(t, await report(ctx, { type: 'crash' }), 400, 'VALIDATION_ERROR')
    for (const bad of [
      { message: 42 },
      { stackTrace: ['a'] },
      { userId: 7 },
      { deviceMemoryMb: '16304' },
      { breadcrumbs: 'none' },
      { breadcrumbs: ['x'] },
      { breadcrumbs: [{ message: 5 }] },
      { customKeys: ['a'] },
      { customKeys: 'k=v' },
    ]) {
      assertError(t, await report(ctx, bad), 400, 'VALIDATION_ERROR')
    }
    assertError(
      t,
      await ctx.call({
        method: 'POST',
        url: CREATE,
        headers: { 'content-type': 'application/json' },
        payload: '{"type":"CRASH",',
      }),
      400,
      'INVALID_JSON',
    )
    const big = JSON.stringify({ type: 'CRASH', stackTrace: 'x'.repeat(256 * 1024) })
    assertError(
      t,
      await ctx.call({ method: 'POST', url: CREATE, headers: { 'content-type': 'application/json' }, payload: big }),
      413,
      'PAYLOAD_TOO_LARGE',
    )
    const justUnder = JSON.stringify({ type: 'CRASH', stackTrace: 'x'.repeat(256 * 1024 - 40) })
    t.ok(Buffer.byteLength(justUnder) <= 256 * 1024)
    t.equal(
      (
        await ctx.call({
          method: 'POST',
          url: CREATE,
          headers: { 'content-type': 'application/json' },
          payload: justUnder,
        })
      ).statusCode,
      201,
      'a body just under 256 KiB is taken',
    )
    t.equal(await countReports(), before + 1, 'nothing stored by the refused ones')
  })
})
