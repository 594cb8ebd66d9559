import t from 'tap'
import { assertError, buildTestApp, eachDialect } from '../../helpers/app.js'
import { createUser } from '../../fixtures/users.js'
import { SESSION, crashReads, godot, unity, unreal } from '../../fixtures/crash-reporting.js'
import { deriveFingerprint } from '../../../features/crash-reporting/ingest.js'

t.test('a derived fingerprint ignores line numbers and addresses, not the message or type', async (t) => {
  const a = deriveFingerprint('CRASH', 'Boom at 0x7ffe1234', 'Game.A () (at Assets/A.cs:42)\nGame.B () [0x0001a]\n')
  const b = deriveFingerprint('CRASH', 'Boom at 0x00ab', 'Game.A () (at Assets/A.cs:97)\r\nGame.B () [0x00ff3]')
  t.equal(a, b)
  t.not(a, deriveFingerprint('NON_FATAL', 'Boom at 0x7ffe1234', 'Game.A () (at Assets/A.cs:42)\nGame.B () [0x0001a]'))
  t.not(a, deriveFingerprint('CRASH', 'Bang', 'Game.A () (at Assets/A.cs:42)\nGame.B () [0x0001a]'))
  t.not(a, deriveFingerprint('CRASH', 'Boom at 0x7ffe1234', 'Game.C () (at Assets/A.cs:42)'))
  t.match(a, /^[0-9a-f]{64}$/)
})

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  const { clock } = ctx
  const { reportRow, sessionRow, group } = crashReads(ctx)

  t.test('sessions: 201 new, 200 known, as each SDK sends them', async (t) => {
    const user = await createUser(ctx)
    const first = await unity.session(ctx, { sessionId: 'a1b2c3d4e5f60718293a4b5c6d7e8f90', userId: user.userId })
    t.equal(first.statusCode, 201)
    t.same(first.json(), { status: 'ok' })
    t.equal(first.body, '{"status":"ok"}')
    const again = await unity.session(ctx, { sessionId: 'a1b2c3d4e5f60718293a4b5c6d7e8f90' })
    t.equal(again.statusCode, 200)
    t.same(again.json(), { status: 'ok' })
    const row = await sessionRow('a1b2c3d4e5f60718293a4b5c6d7e8f90')
    t.match(row, {
      app_version: '1.0.0',
      platform: 'WindowsPlayer',
      user_id: user.userId,
      linked_user_id: user.userId,
      crashed: 0,
    })

    t.equal((await godot.session(ctx, { sessionId: 'godot-session-1' })).statusCode, 201)
    t.match(await sessionRow('godot-session-1'), { user_id: 'anonymous', linked_user_id: null })
    t.equal((await unreal.session(ctx, { sessionId: 'unreal-session-1' })).statusCode, 201)
    t.match(await sessionRow('unreal-session-1'), { user_id: '', app_version: '1.0.0.0' })
    t.equal(
      (await unity.session(ctx, { sessionId: 'A1B2C3D4E5F60718293A4B5C6D7E8F90' })).statusCode,
      201,
      'session ids compare exactly',
    )
  })

  t.test('concurrent registrations of one session: exactly one 201', async (t) => {
    const results = await Promise.all(
      Array.from({ length: 12 }, () => godot.session(ctx, { sessionId: 'race-session' })),
    )
    t.same(results.map((r) => r.statusCode).sort(), [200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 201])
  })

  t.test('session bad inputs are 400 and store nothing', async (t) => {
    for (const payload of [
      {},
      { sessionId: '' },
      { sessionId: 5 },
      { sessionId: 's', appVersion: 1 },
      { sessionId: 's', userId: {} },
    ]) {
      assertError(t, await ctx.call({ method: 'POST', url: SESSION, payload }), 400, 'VALIDATION_ERROR')
    }
    assertError(
      t,
      await ctx.call({
        method: 'POST',
        url: SESSION,
        headers: { 'content-type': 'application/json' },
        payload: '{"sessionId":',
      }),
      400,
      'INVALID_JSON',
    )
    t.equal(await sessionRow('s'), undefined)
  })

  t.test('Unity report: every field present, empty strings, 7-digit fractional timestamps', async (t) => {
    const res = await unity.report(ctx)
    t.equal(res.statusCode, 201)
    const body = res.json()
    t.same(Object.keys(body).sort(), ['createdAt', 'groupId', 'id', 'truncated'])
    t.match(body, { createdAt: '2026-11-22T10:00:00.000Z', truncated: false })
    const row = await reportRow(body.id)
    t.match(row, {
      group_id: body.groupId,
      type: 'CRASH',
      message: 'NullReferenceException: Object reference not set',
      user_id: '',
      linked_user_id: null,
      app_version: '1.0.0',
      os: 'Windows 11  (10.0.22631) 64bit',
      truncated: 0,
    })
    t.equal(Number(row.device_memory_mb), 16304)
    t.match(row.fingerprint, /^[0-9a-f]{64}$/, 'empty fingerprint derived')
    t.same(JSON.parse(row.breadcrumbs), [
      { timestamp: '2026-11-22T09:59:58.1234567Z', type: 'navigation', message: 'MainMenu' },
      { timestamp: '2026-11-22T09:59:59.7654321Z', type: 'log', message: 'Loading level 3' },
    ])
    t.same(JSON.parse(row.custom_keys), { level: '3', build: '' })
    t.match(row.session_id, /^[0-9a-f-]{36}$/, 'empty sessionId: a generated session')
    t.match(await sessionRow(row.session_id), { crashed: 1, app_version: '1.0.0', crashed_at: clock.now() })

    const user = await createUser(ctx)
    const linked = await unity.report(ctx, { userId: user.userId, sessionId: 'a1b2c3d4e5f60718293a4b5c6d7e8f90' })
    t.equal(linked.statusCode, 201)
    t.match(await reportRow(linked.json().id), { user_id: user.userId, linked_user_id: user.userId })
    t.equal(linked.json().groupId, body.groupId, 'same derived fingerprint, same group')
    t.match(
      await sessionRow('a1b2c3d4e5f60718293a4b5c6d7e8f90'),
      { crashed: 1 },
      'the registered session is now crashed',
    )
  })

  t.test('Godot report: userId "anonymous", "YYYY-MM-DD HH:MM:SS" breadcrumbs, no stackTrace', async (t) => {
    const res = await godot.report(ctx)
    t.equal(res.statusCode, 201)
    const row = await reportRow(res.json().id)
    t.match(row, {
      user_id: 'anonymous',
      linked_user_id: null,
      stack_trace: '',
      sdk_version: 'godot-1.2.0',
      session_id: '9f86d081884c7d659a2feaa0c55ad015',
    })
    t.same(
      JSON.parse(row.breadcrumbs).map((b: { timestamp: string }) => b.timestamp),
      ['2026-11-22 09:59:58', '2026-11-22 09:59:59'],
    )
    t.match(
      await sessionRow('9f86d081884c7d659a2feaa0c55ad015'),
      { crashed: 1, user_id: 'anonymous' },
      'unregistered session registered as crashed',
    )
    t.equal((await godot.session(ctx, { sessionId: '9f86d081884c7d659a2feaa0c55ad015' })).statusCode, 200, 'then known')
    const g = await group(res.json().groupId)
    t.equal(g.affectedUsers, 0, '"anonymous" is nobody in particular')
  })

  t.test('Unreal report: optional fields dropped, ISO breadcrumbs', async (t) => {
    const user = await createUser(ctx)
    const anonymous = await unreal.report(ctx)
    t.equal(anonymous.statusCode, 201)
    t.match(await reportRow(anonymous.json().id), { user_id: '', stack_trace: '', sdk_version: 'unreal-1.0.0' })
    const signedIn = await unreal.report(ctx, {
      userId: user.userId,
      stackTrace: 'UMyActor::Tick() [D:\\Game\\MyActor.cpp:88]',
    })
    t.equal(signedIn.statusCode, 201)
    t.match(await reportRow(signedIn.json().id), {
      linked_user_id: user.userId,
      stack_trace: 'UMyActor::Tick() [D:\\Game\\MyActor.cpp:88]',
    })
  })
})
