import t from 'tap'
import { assertError, buildTestApp, eachDialect } from '../../helpers/app.js'
import { crashReads, godot, report, unity } from '../../fixtures/crash-reporting.js'
import { compareVersions, versionKey } from '../../../features/crash-reporting/versions.js'

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

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  const { app, admin, clock } = ctx
  const { group } = crashReads(ctx)

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
