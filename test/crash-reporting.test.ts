import t from 'tap'
import { assertError, buildTestApp, eachDialect } from './helpers/app.js'
import { createUser } from './fixtures/users.js'
import { CREATE, SESSION, godot, report, unity, unreal } from './fixtures/crash-reporting.js'
import { compareVersions, versionKey } from '../plugins/crash-reporting/versions.js'
import { deriveFingerprint } from '../plugins/crash-reporting/ingest.js'

t.test('versions compare numerically segment by segment; suffixes are pre-releases', async (t) => {
  const ordered = [
    '',
    'dev',
    '1.2.0-beta',
    '1.2.0-beta.2',
    '1.2.0-beta.10',
    '1.2.0-rc.1',
    '1.2',
    '1.2.1',
    '1.9',
    'v1.9.1',
    '1.10',
    '1.10.0.1',
    '2.0',
  ]
  for (let i = 0; i + 1 < ordered.length; i++) {
    t.equal(compareVersions(ordered[i]!, ordered[i + 1]!), -1, `${ordered[i]} < ${ordered[i + 1]}`)
    t.ok(versionKey(ordered[i]!) < versionKey(ordered[i + 1]!), `keys: ${ordered[i]} < ${ordered[i + 1]}`)
  }
  t.equal(versionKey('1.2'), versionKey('1.2.0'), '1.2 = 1.2.0')
  t.equal(versionKey('2.0+45'), versionKey('2.0'), 'build metadata ignored')
  t.equal(versionKey('01.9'), versionKey('1.9'), 'leading zeros ignored')
})

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
  const { app, admin, clock } = ctx
  const reportRow = (id: string) =>
    app.db.selectFrom('crash_reports').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
  const sessionRow = (id: string) =>
    app.db.selectFrom('crash_sessions').selectAll().where('session_id', '=', id).executeTakeFirst()
  const countReports = async () =>
    Number(
      (
        await app.db
          .selectFrom('crash_reports')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    )
  const group = async (groupId: string) =>
    (await admin({ method: 'GET', url: `/crash-reports/groups/${groupId}` })).json()

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

  t.test('concurrent reports of one crash: every occurrence counted, users and versions distinct', async (t) => {
    const fingerprint = 'concurrent-fp'
    const users = ['u1', 'u2', 'u3', 'anonymous', '']
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        report(ctx, {
          fingerprint,
          userId: users[i % users.length],
          appVersion: i % 2 ? '2.0.0' : '2.1.0',
          sessionId: `cs-${i % 4}`,
        }),
      ),
    )
    t.same([...new Set(results.map((r) => r.statusCode))], [201])
    const groupIds = new Set(results.map((r) => r.json().groupId))
    t.equal(groupIds.size, 1, 'one group')
    const g = await group([...groupIds][0]!)
    t.equal(g.occurrences, 20)
    t.equal(g.affectedUsers, 3, 'u1, u2, u3 ("" and "anonymous" are nobody)')
    t.same(g.affectedVersions, ['2.1.0', '2.0.0'])
    t.same(
      g.versions.map((v: { appVersion: string; occurrences: number }) => [v.appVersion, v.occurrences]),
      [
        ['2.1.0', 10],
        ['2.0.0', 10],
      ],
    )
    t.equal(g.recentOccurrences.length, 20)
    const sessions = await app.db.selectFrom('crash_sessions').selectAll().where('session_id', 'like', 'cs-%').execute()
    t.equal(sessions.length, 4, 'concurrent reports of one unregistered session register it once')
    t.ok(sessions.every((s) => s.crashed === 1))
  })

  t.test('scripted history: grouping, first/last seen, regression (1.10 > 1.9), crash-free rate', async (t) => {
    const start = clock.now()
    // Ten sessions of 1.9, four of 1.10; three 1.9 sessions and one 1.10 session crash.
    for (let i = 0; i < 10; i++)
      t.equal((await unity.session(ctx, { sessionId: `h19-${i}`, appVersion: '1.9' })).statusCode, 201)
    for (let i = 0; i < 4; i++)
      t.equal((await godot.session(ctx, { sessionId: `h110-${i}`, appVersion: '1.10' })).statusCode, 201)
    const first = await report(ctx, {
      fingerprint: 'history-fp',
      appVersion: '1.9',
      sessionId: 'h19-0',
      message: 'first message',
      userId: 'p1',
    })
    const groupId = first.json().groupId
    clock.advance(60_000)
    await report(ctx, {
      fingerprint: 'history-fp',
      appVersion: '1.9',
      sessionId: 'h19-1',
      message: 'later message',
      userId: 'p2',
    })
    await report(ctx, { fingerprint: 'history-fp', appVersion: '1.9', sessionId: 'h19-1', userId: 'p2' })
    await report(ctx, { fingerprint: 'other-fp', appVersion: '1.9', sessionId: 'h19-2' })

    let g = await group(groupId)
    t.match(g, {
      status: 'OPEN',
      occurrences: 3,
      affectedUsers: 2,
      affectedVersions: ['1.9'],
      message: 'first message',
      firstSeen: new Date(start).toISOString(),
      lastSeen: new Date(start + 60_000).toISOString(),
      lastAppVersion: '1.9',
    })

    const resolved = await admin({
      method: 'PATCH',
      url: `/crash-reports/groups/${groupId}`,
      payload: { status: 'RESOLVED', resolvedInVersion: '1.9' },
    })
    t.equal(resolved.statusCode, 200)
    t.match(resolved.json(), { id: groupId, status: 'RESOLVED', resolvedInVersion: '1.9', occurrences: 3 })
    clock.advance(60_000)
    await report(ctx, { fingerprint: 'history-fp', appVersion: '1.9', sessionId: 'h19-1' })
    t.equal((await group(groupId)).status, 'RESOLVED', 'an old build still crashing is no regression')
    clock.advance(1000)
    await report(ctx, { fingerprint: 'history-fp', appVersion: '1.9.0', sessionId: 'h19-1' })
    t.equal((await group(groupId)).status, 'RESOLVED', '1.9.0 = 1.9')
    clock.advance(1000)
    await report(ctx, { fingerprint: 'history-fp', appVersion: '1.10', sessionId: 'h110-0' })
    g = await group(groupId)
    t.match(g, {
      status: 'REGRESSED',
      occurrences: 6,
      affectedVersions: ['1.10', '1.9.0', '1.9'],
      lastAppVersion: '1.10',
    })
    t.equal(g.recentOccurrences[0].appVersion, '1.10', 'newest occurrence first')
    t.equal(g.recentOccurrences.length, 6)

    // Resolved without a version: any new report regresses it. Ignored: stays ignored.
    await admin({ method: 'PATCH', url: `/crash-reports/groups/${groupId}`, payload: { status: 'RESOLVED' } })
    await report(ctx, { fingerprint: 'history-fp', appVersion: '1.0', sessionId: 'h19-1' })
    t.equal((await group(groupId)).status, 'REGRESSED')
    const ignored = await admin({
      method: 'PATCH',
      url: `/crash-reports/groups/${groupId}`,
      payload: { status: 'IGNORED', resolvedInVersion: null },
    })
    t.match(ignored.json(), { status: 'IGNORED', resolvedInVersion: null })
    await report(ctx, { fingerprint: 'history-fp', appVersion: '9.9', sessionId: 'h19-1' })
    t.equal((await group(groupId)).status, 'IGNORED')
    // Resolved in a pre-release: the release of that version is newer.
    await admin({
      method: 'PATCH',
      url: `/crash-reports/groups/${groupId}`,
      payload: { status: 'RESOLVED', resolvedInVersion: '2.0.0-beta.2' },
    })
    await report(ctx, { fingerprint: 'history-fp', appVersion: '2.0.0-beta.1', sessionId: 'h19-1' })
    t.equal((await group(groupId)).status, 'RESOLVED')
    await report(ctx, { fingerprint: 'history-fp', appVersion: '2.0.0', sessionId: 'h19-1' })
    t.equal((await group(groupId)).status, 'REGRESSED')

    const v19 = (await admin({ method: 'GET', url: '/crash-reports/stats?appVersion=1.9' })).json()
    t.same(v19, {
      appVersion: '1.9',
      sessions: 10,
      crashedSessions: 3,
      crashFreeRate: 0.7,
      versions: [{ appVersion: '1.9', sessions: 10, crashedSessions: 3, crashFreeRate: 0.7 }],
    })
    const v110 = (await admin({ method: 'GET', url: '/crash-reports/stats?appVersion=1.10' })).json()
    t.match(v110, { sessions: 4, crashedSessions: 1, crashFreeRate: 0.75 })
    const none = (await admin({ method: 'GET', url: '/crash-reports/stats?appVersion=0.0.1-never' })).json()
    t.same(none, { appVersion: '0.0.1-never', sessions: 0, crashedSessions: 0, crashFreeRate: null, versions: [] })
    const all = (await admin({ method: 'GET', url: '/crash-reports/stats' })).json()
    t.equal(all.appVersion, null)
    t.equal(
      all.sessions,
      all.versions.reduce((n: number, v: { sessions: number }) => n + v.sessions, 0),
    )
    const order = all.versions.map((v: { appVersion: string }) => v.appVersion)
    t.ok(order.indexOf('1.10') < order.indexOf('1.9'), 'newest version first')
  })

  t.test('admin: list by status and sort with cursor pagination, detail, status changes', async (t) => {
    clock.advance(3_600_000)
    const ids: string[] = []
    for (let i = 0; i < 5; i++) {
      for (let n = 0; n <= i; n++) await report(ctx, { fingerprint: `page-${i}`, appVersion: '3.0' })
      ids.push((await report(ctx, { fingerprint: `page-${i}`, appVersion: '3.0' })).json().groupId)
      clock.advance(1000)
    }
    const byCount = (await admin({ method: 'GET', url: '/crash-reports/groups?sort=count&limit=100' })).json()
    const counts = byCount.items.map((g: { occurrences: number }) => g.occurrences)
    t.same(
      counts,
      [...counts].sort((a: number, b: number) => b - a),
      'most occurrences first',
    )
    t.equal(byCount.nextCursor, null)

    const seen: string[] = []
    let cursor: string | null = null
    for (let guard = 0; guard < 50; guard++) {
      const res = await admin({
        method: 'GET',
        url: `/crash-reports/groups?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      })
      t.equal(res.statusCode, 200)
      seen.push(...res.json().items.map((g: { id: string }) => g.id))
      cursor = res.json().nextCursor
      if (!cursor) break
    }
    t.equal(new Set(seen).size, seen.length, 'no group twice')
    t.equal(seen.length, byCount.items.length, 'every group once')
    t.same(seen.slice(0, 5), [...ids].reverse(), 'latest last occurrence first')

    const countPages: string[] = []
    cursor = null
    for (let guard = 0; guard < 50; guard++) {
      const res = await admin({
        method: 'GET',
        url: `/crash-reports/groups?sort=count&limit=3${cursor ? `&cursor=${cursor}` : ''}`,
      })
      countPages.push(...res.json().items.map((g: { id: string }) => g.id))
      cursor = res.json().nextCursor
      if (!cursor) break
    }
    t.same(
      countPages,
      byCount.items.map((g: { id: string }) => g.id),
      'count order pages the same way',
    )

    await admin({ method: 'PATCH', url: `/crash-reports/groups/${ids[1]}`, payload: { status: 'IGNORED' } })
    const ignored = (await admin({ method: 'GET', url: '/crash-reports/groups?status=IGNORED' })).json()
    t.ok(ignored.items.length >= 1)
    t.ok(ignored.items.every((g: { status: string }) => g.status === 'IGNORED'))
    t.ok(ignored.items.some((g: { id: string }) => g.id === ids[1]))
    const open = (await admin({ method: 'GET', url: '/crash-reports/groups?status=OPEN&limit=100' })).json()
    t.notOk(open.items.some((g: { id: string }) => g.id === ids[1]))

    const detail = await admin({ method: 'GET', url: `/crash-reports/groups/${ids[4]}` })
    t.equal(detail.statusCode, 200)
    t.match(detail.json(), { id: ids[4], occurrences: 6, versions: [{ appVersion: '3.0', occurrences: 6 }] })
    t.match(detail.json().recentOccurrences[0], {
      type: 'CRASH',
      appVersion: '3.0',
      breadcrumbs: [],
      customKeys: {},
      truncated: false,
      linkedUserId: null,
    })

    assertError(
      t,
      await admin({ method: 'GET', url: '/crash-reports/groups/7d1e0f9a-3b2c-4d5e-8f60-718293a4b5c6' }),
      404,
      'NOT_FOUND',
    )
    assertError(t, await admin({ method: 'GET', url: '/crash-reports/groups/not-a-uuid' }), 400, 'VALIDATION_ERROR')
    assertError(
      t,
      await admin({
        method: 'PATCH',
        url: '/crash-reports/groups/7d1e0f9a-3b2c-4d5e-8f60-718293a4b5c6',
        payload: { status: 'OPEN' },
      }),
      404,
      'NOT_FOUND',
    )
    assertError(
      t,
      await admin({ method: 'PATCH', url: `/crash-reports/groups/${ids[0]}`, payload: { status: 'REGRESSED' } }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(
      t,
      await admin({ method: 'PATCH', url: `/crash-reports/groups/${ids[0]}`, payload: {} }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(
      t,
      await admin({
        method: 'PATCH',
        url: `/crash-reports/groups/${ids[0]}`,
        payload: { status: 'OPEN', resolvedInVersion: '1.0' },
      }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(
      t,
      await admin({
        method: 'PATCH',
        url: `/crash-reports/groups/${ids[0]}`,
        payload: { status: 'RESOLVED', resolvedInVersion: 10 },
      }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(t, await admin({ method: 'GET', url: '/crash-reports/groups?status=NEW' }), 400, 'VALIDATION_ERROR')
    assertError(t, await admin({ method: 'GET', url: '/crash-reports/groups?sort=size' }), 400, 'VALIDATION_ERROR')
    assertError(t, await admin({ method: 'GET', url: '/crash-reports/groups?cursor=garbage' }), 400, 'VALIDATION_ERROR')
    assertError(t, await admin({ method: 'GET', url: '/crash-reports/groups?limit=0' }), 400, 'VALIDATION_ERROR')
    assertError(t, await ctx.call({ method: 'GET', url: '/crash-reports/stats' }), 404, 'NOT_FOUND')
    t.equal(
      (await app.inject({ method: 'GET', url: '/api/v1/admin/crash-reports/stats' })).statusCode,
      401,
      'admin key required',
    )
  })
})
