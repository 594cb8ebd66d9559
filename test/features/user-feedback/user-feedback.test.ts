import t from 'tap'
import { assertError, buildTestApp, eachDialect } from '../../helpers/app.js'
import { bearer, createUser, UNKNOWN_USER } from '../../fixtures/users.js'
import { FEEDBACK, feedback } from '../../fixtures/live-ops.js'

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  const { app, admin, clock } = ctx
  const rows = () => app.db.selectFrom('user_feedback').selectAll().orderBy('created_at').orderBy('id').execute()
  const count = async () => (await rows()).length

  t.test('answers the JSON string "ok", with and without userId, as each SDK sends it', async (t) => {
    const user = await createUser(ctx)
    const sends = [
      () => feedback.unity(ctx, user.userId),
      () => feedback.unity(ctx, ''),
      () => feedback.godot(ctx, user.userId),
      () => feedback.unreal(ctx),
      () => feedback.unreal(ctx, user.userId),
    ]
    const since = clock.now()
    for (const send of sends) {
      const res = await send()
      clock.advance(1)
      t.equal(res.statusCode, 200)
      t.equal(res.body, '"ok"', 'exactly "ok"')
      t.match(res.headers['content-type'], /^application\/json/)
      t.equal(res.json(), 'ok')
    }
    const stored = (await rows()).filter((r) => r.created_at >= since)
    t.same(
      stored.map((r) => [r.user_id, r.category, r.email, r.title]),
      [
        [user.userId, 'BUG', null, 'Crash on level 3'],
        [null, 'BUG', null, 'Crash on level 3'],
        [user.userId, 'FEATURE', null, 'Idea'],
        [null, 'GENERAL', null, 'Hello'],
        [user.userId, 'GENERAL', null, 'Hello'],
      ],
    )
    t.equal(stored[0]!.device_info, 'Unity 6000.0.23f1 | Windows 11 | System Product Name | NVIDIA GeForce RTX 3070')
    t.equal(stored[3]!.device_info, null)
  })

  t.test('limits and categories', async (t) => {
    const user = await createUser(ctx)
    const submit = async (body: Record<string, unknown>) => {
      clock.advance(1)
      return ctx.call({ method: 'POST', url: FEEDBACK, payload: { title: 'T', message: 'M', ...body } })
    }
    t.equal(
      (await submit({ title: 'x'.repeat(100), message: '🎮'.repeat(2048), deviceInfo: 'd'.repeat(500) })).statusCode,
      200,
      'at the limits',
    )
    t.equal(
      (await submit({ category: 'PERFORMANCE', email: 'player@example.com', userId: user.userId })).statusCode,
      200,
    )
    t.equal((await submit({ category: 'c'.repeat(32), email: 'a@b' })).statusCode, 200, 'light e-mail check')
    const last = (await rows()).slice(-3)
    t.same(
      last.map((r) => r.category),
      ['GENERAL', 'PERFORMANCE', 'c'.repeat(32)],
    )
    t.equal(last[1]!.email, 'player@example.com')

    const before = await count()
    for (const body of [
      { title: '' },
      { title: 'x'.repeat(101) },
      { message: '' },
      { message: 'm'.repeat(2049) },
      { title: 5 },
      { message: null },
      { category: 'c'.repeat(33) },
      { category: 'BUG\n' },
      { category: 7 },
      { email: 'not-an-email' },
      { email: 'two words@example.com' },
      { email: `${'a'.repeat(250)}@b.co` },
      { deviceInfo: 'd'.repeat(501) },
      { userId: 'not-a-uuid' },
      { userId: 42 },
    ]) {
      assertError(t, await submit(body), 400, 'VALIDATION_ERROR')
    }
    assertError(
      t,
      await ctx.call({ method: 'POST', url: FEEDBACK, payload: { message: 'M' } }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(
      t,
      await ctx.call({
        method: 'POST',
        url: FEEDBACK,
        headers: { 'content-type': 'application/json' },
        payload: '{"title":',
      }),
      400,
      'INVALID_JSON',
    )
    assertError(
      t,
      await ctx.call({ method: 'POST', url: FEEDBACK, headers: { 'content-type': 'application/json' }, payload: '' }),
      400,
      'VALIDATION_ERROR',
    )
    t.equal(await count(), before, 'nothing stored')
  })

  t.test('user-scoped when a userId or a bearer comes with it', async (t) => {
    const user = await createUser(ctx)
    const other = await createUser(ctx)
    const before = await count()
    assertError(t, await feedback.unity(ctx, UNKNOWN_USER), 404, 'USER_NOT_FOUND')
    assertError(t, await feedback.godot(ctx, user.userId, bearer(other)), 403, 'SESSION_FORBIDDEN')
    assertError(
      t,
      await feedback.godot(ctx, user.userId, { authorization: 'Bearer nonsense' }),
      401,
      'SESSION_REQUIRED',
    )
    const anonymousWithBadBearer = await ctx.call({
      method: 'POST',
      url: FEEDBACK,
      headers: { authorization: 'Bearer nonsense' },
      payload: { title: 'T', message: 'M' },
    })
    assertError(t, anonymousWithBadBearer, 401, 'SESSION_REQUIRED')
    const banned = await createUser(ctx)
    await admin({ method: 'POST', url: `/users/${banned.userId}/ban`, payload: {} })
    assertError(t, await feedback.unity(ctx, banned.userId), 403, 'USER_BANNED')
    t.equal(await count(), before, 'nothing stored')

    clock.advance(1)
    const viaBearer = await ctx.call({
      method: 'POST',
      url: FEEDBACK,
      headers: bearer(user),
      payload: { title: 'T', message: 'M' },
    })
    t.equal(viaBearer.statusCode, 200)
    t.equal((await rows()).at(-1)!.user_id, user.userId, 'a bearer without userId files it as that user')
  })

  t.test('strict mode: a named user needs their session; anonymous feedback needs none', async (t) => {
    const strict = await buildTestApp(t, dialect, { env: { AUTH_MODE: 'strict' } })
    const user = await createUser(strict)
    assertError(t, await feedback.godot(strict, user.userId), 401, 'SESSION_REQUIRED')
    t.equal((await feedback.godot(strict, user.userId, bearer(user))).statusCode, 200)
    t.equal((await feedback.unreal(strict)).statusCode, 200)
  })

  t.test('admin list: filters by user, category, time range; cursor pages newest first', async (t) => {
    // Everything before `start` belongs to the other tests: every query below starts there.
    const fresh = ctx
    fresh.clock.advance(60_000)
    const alice = await createUser(fresh)
    const bob = await createUser(fresh)
    const start = fresh.clock.now()
    for (let i = 0; i < 7; i++) {
      await feedback.unity(fresh, i % 2 ? alice.userId : bob.userId, {
        title: `t${i}`,
        category: i < 3 ? 'BUG' : 'FEATURE',
      })
      fresh.clock.advance(1000)
    }
    await feedback.unreal(fresh)
    const since = `from=${encodeURIComponent(new Date(start).toISOString())}`
    const list = (q: string) =>
      fresh.admin({ method: 'GET', url: `/user-feedback${q}${q.includes('from=') ? '' : `${q ? '&' : '?'}${since}`}` })
    const all = (await list('')).json()
    t.equal(all.items.length, 8)
    t.equal(all.nextCursor, null)
    t.same(
      all.items.map((i: { title: string }) => i.title),
      ['Hello', 't6', 't5', 't4', 't3', 't2', 't1', 't0'],
    )
    t.match(all.items[1], {
      userId: bob.userId,
      playerName: bob.username,
      title: 't6',
      category: 'FEATURE',
      email: null,
      createdAt: new Date(start + 6000).toISOString(),
      message: 'The game freezes when I open the map.',
    })
    t.equal(all.items[0].userId, null, 'anonymous')
    t.equal(all.items[0].playerName, null, 'anonymous feedback names no player')
    t.same(
      new Set(all.items.slice(1).map((i: { playerName: string }) => i.playerName)),
      new Set([alice.username, bob.username]),
      "each player's feedback carries that player's name",
    )

    t.same(
      (await list(`?userId=${alice.userId}`)).json().items.map((i: { title: string }) => i.title),
      ['t5', 't3', 't1'],
    )
    t.same(
      (await list('?category=BUG')).json().items.map((i: { title: string }) => i.title),
      ['t2', 't1', 't0'],
    )
    const from = new Date(start + 2000).toISOString().replace('.000Z', '.0000000Z')
    const to = new Date(start + 5000).toISOString().replace('Z', '+00:00')
    t.same(
      (await list(`?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`))
        .json()
        .items.map((i: { title: string }) => i.title),
      ['t4', 't3', 't2'],
      '[from, to)',
    )
    const offset = new Date(start + 3000 + 2 * 3_600_000).toISOString().replace('Z', '+02:00') // = start + 3 s
    t.same(
      (await list(`?to=${encodeURIComponent(offset)}`)).json().items.map((i: { title: string }) => i.title),
      ['t2', 't1', 't0'],
      'an offset form',
    )

    const pages: string[] = []
    let cursor: string | null = null
    for (let guard = 0; guard < 20; guard++) {
      const res = await list(`?limit=3${cursor ? `&cursor=${cursor}` : ''}`)
      pages.push(...res.json().items.map((i: { title: string }) => i.title))
      cursor = res.json().nextCursor
      if (!cursor) break
    }
    t.same(
      pages,
      all.items.map((i: { title: string }) => i.title),
      'pages add up to the list',
    )

    for (const q of [
      '?from=yesterday',
      '?to=2026-13-45T00:00:00Z',
      '?userId=abc',
      '?limit=101',
      '?cursor=abc',
      '?category=',
    ]) {
      assertError(t, await list(q), 400, 'VALIDATION_ERROR')
    }
    t.equal((await fresh.app.inject({ method: 'GET', url: '/api/v1/admin/user-feedback' })).statusCode, 401)
  })

  t.test('concurrent submissions are all stored', async (t) => {
    const user = await createUser(ctx)
    const before = await count()
    const results = await Promise.all(
      Array.from({ length: 15 }, (_, i) => feedback.unity(ctx, i % 2 ? user.userId : '')),
    )
    t.same([...new Set(results.map((r) => r.statusCode))], [200])
    t.equal(await count(), before + 15)
    clock.advance(1)
  })
})
