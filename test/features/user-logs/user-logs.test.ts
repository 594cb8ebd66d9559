import t from 'tap'
import { assertError, buildTestApp, eachDialect } from '../../helpers/app.js'
import { bearer, createUser, UNKNOWN_USER } from '../../fixtures/users.js'
import { LOGS, feedback, userLog } from '../../fixtures/live-ops.js'
import { report, unity } from '../../fixtures/crash-reporting.js'

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  const { app, admin, clock } = ctx
  const logRow = (id: string) => app.db.selectFrom('user_logs').selectAll().where('id', '=', id).executeTakeFirst()
  const count = async () =>
    Number(
      (
        await app.db
          .selectFrom('user_logs')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    )

  t.test('201 { id, createdAt } as each SDK sends it', async (t) => {
    const user = await createUser(ctx)
    const unityRes = await userLog.unity(ctx, user.userId)
    t.equal(unityRes.statusCode, 201)
    t.same(Object.keys(unityRes.json()).sort(), ['createdAt', 'id'])
    t.equal(unityRes.json().createdAt, new Date(clock.now()).toISOString())
    t.match(await logRow(unityRes.json().id), {
      user_id: user.userId,
      type: 'INFO',
      message: 'Player completed tutorial',
      error_code: null,
    })
    const godotRes = await userLog.godot(ctx, user.userId, 'ERROR', 'Save failed\nStack: save.gd:12', 'SAVE_001')
    t.equal(godotRes.statusCode, 201)
    t.match(await logRow(godotRes.json().id), {
      type: 'ERROR',
      error_code: 'SAVE_001',
      message: 'Save failed\nStack: save.gd:12',
    })
    const unrealRes = await userLog.godot(ctx, user.userId, 'WARN', 'Low memory', undefined, bearer(user))
    t.equal(unrealRes.statusCode, 201, 'Unreal sends the bearer')
  })

  t.test('limits and bad inputs: 400, nothing stored', async (t) => {
    const user = await createUser(ctx)
    t.equal(
      (await userLog.unity(ctx, user.userId, 'WARN', '🎮'.repeat(1000), 'e'.repeat(50))).statusCode,
      201,
      'at the limits',
    )
    const before = await count()
    for (const body of [
      { message: '' },
      { message: 'm'.repeat(1001) },
      { message: 5 },
      { type: 'DEBUG' },
      { type: 'info' },
      { type: null },
      { errorCode: 'e'.repeat(51) },
      { errorCode: 50 },
      { userId: 'not-a-uuid' },
      { userId: '' },
    ]) {
      assertError(
        t,
        await ctx.call({
          method: 'POST',
          url: LOGS,
          payload: { message: 'M', type: 'INFO', userId: user.userId, ...body },
        }),
        400,
        'VALIDATION_ERROR',
      )
    }
    const wrongType = assertError(t, await userLog.unity(ctx, user.userId, 'FATAL'), 400, 'VALIDATION_ERROR')
    t.match(wrongType.message, /INFO, WARN, ERROR/)
    assertError(
      t,
      await ctx.call({ method: 'POST', url: LOGS, payload: { message: 'M', type: 'INFO' } }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(
      t,
      await ctx.call({
        method: 'POST',
        url: LOGS,
        headers: { 'content-type': 'application/json' },
        payload: '{"message"',
      }),
      400,
      'INVALID_JSON',
    )
    assertError(t, await userLog.unity(ctx, UNKNOWN_USER), 404, 'USER_NOT_FOUND')
    const other = await createUser(ctx)
    assertError(
      t,
      await userLog.godot(ctx, user.userId, 'INFO', 'x', undefined, bearer(other)),
      403,
      'SESSION_FORBIDDEN',
    )
    await admin({ method: 'POST', url: `/users/${other.userId}/ban`, payload: {} })
    assertError(t, await userLog.unity(ctx, other.userId), 403, 'USER_BANNED')
    t.equal(await count(), before)
  })

  t.test('concurrent logs are all stored', async (t) => {
    const user = await createUser(ctx)
    const before = await count()
    const results = await Promise.all(
      Array.from({ length: 15 }, (_, i) => userLog.unity(ctx, user.userId, 'INFO', `line ${i}`)),
    )
    t.same([...new Set(results.map((r) => r.statusCode))], [201])
    t.equal(new Set(results.map((r) => r.json().id)).size, 15)
    t.equal(await count(), before + 15)
  })

  t.test('admin list: filters by user, type, time range; cursor pages newest first', async (t) => {
    clock.advance(60_000)
    const alice = await createUser(ctx)
    const bob = await createUser(ctx)
    const start = clock.now()
    const types = ['INFO', 'WARN', 'ERROR']
    for (let i = 0; i < 9; i++) {
      await userLog.unity(
        ctx,
        i % 3 === 0 ? bob.userId : alice.userId,
        types[i % 3],
        `m${i}`,
        i % 3 === 2 ? `E${i}` : '',
      )
      clock.advance(1000)
    }
    const since = `from=${encodeURIComponent(new Date(start).toISOString())}`
    const list = (q: string) =>
      admin({ method: 'GET', url: `/user-logs${q}${q.includes('from=') ? '' : `${q ? '&' : '?'}${since}`}` })
    const messages = (res: { json(): any }) => res.json().items.map((i: { message: string }) => i.message)
    const all = await list('')
    t.equal(all.statusCode, 200)
    t.same(messages(all), ['m8', 'm7', 'm6', 'm5', 'm4', 'm3', 'm2', 'm1', 'm0'])
    t.same(all.json().items[0], {
      id: all.json().items[0].id,
      userId: alice.userId,
      message: 'm8',
      type: 'ERROR',
      errorCode: 'E8',
      createdAt: new Date(start + 8000).toISOString(),
    })
    t.same(messages(await list(`?userId=${bob.userId}`)), ['m6', 'm3', 'm0'])
    t.same(messages(await list('?type=ERROR')), ['m8', 'm5', 'm2'])
    t.same(messages(await list(`?userId=${alice.userId}&type=WARN`)), ['m7', 'm4', 'm1'])
    const from = new Date(start + 3000).toISOString().replace('Z', '000Z')
    const to = new Date(start + 6000).toISOString()
    t.same(
      messages(await list(`?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`)),
      ['m5', 'm4', 'm3'],
      '[from, to), 6 fractional digits',
    )

    const pages: string[] = []
    let cursor: string | null = null
    for (let guard = 0; guard < 20; guard++) {
      const res = await list(`?limit=4${cursor ? `&cursor=${cursor}` : ''}`)
      pages.push(...messages(res))
      cursor = res.json().nextCursor
      if (!cursor) break
    }
    t.same(pages, messages(all))
    for (const q of ['?type=DEBUG', '?from=2026-11-22', '?to=soon', '?userId=1', '?limit=0', '?cursor=%%%']) {
      assertError(t, await list(q), 400, 'VALIDATION_ERROR')
    }
  })

  t.test('the admin user delete erases their feedback, logs and linked crash reports', async (t) => {
    const gone = await createUser(ctx)
    const stays = await createUser(ctx)
    const fingerprint = 'erasure-fp'
    t.equal((await feedback.unity(ctx, gone.userId)).statusCode, 200)
    t.equal((await feedback.unity(ctx, stays.userId)).statusCode, 200)
    t.equal((await feedback.unity(ctx, '')).statusCode, 200)
    t.equal((await userLog.unity(ctx, gone.userId)).statusCode, 201)
    t.equal((await userLog.unity(ctx, stays.userId)).statusCode, 201)
    t.equal((await unity.session(ctx, { sessionId: 'erasure-session', userId: gone.userId })).statusCode, 201)
    const linked = await report(ctx, { fingerprint, userId: gone.userId, sessionId: 'erasure-session' })
    const otherUser = await report(ctx, { fingerprint, userId: stays.userId })
    const nonUuid = await report(ctx, { fingerprint, userId: 'player-gone' })
    const anonymous = await report(ctx, { fingerprint, userId: 'anonymous' })
    const groupId = linked.json().groupId
    t.equal((await admin({ method: 'GET', url: `/crash-reports/groups/${groupId}` })).json().affectedUsers, 3)

    const res = await admin({ method: 'DELETE', url: `/users/${gone.userId}` })
    t.equal(res.statusCode, 200)

    const byUser = async (
      table: 'user_feedback' | 'user_logs' | 'crash_reports' | 'crash_sessions' | 'crash_group_users',
      column: 'user_id' | 'linked_user_id',
      id: string,
    ) => (await app.db.selectFrom(table).select(column).where(column, '=', id).execute()).length
    t.equal(await byUser('user_feedback', 'user_id', gone.userId), 0, 'feedback erased')
    t.equal(await byUser('user_logs', 'user_id', gone.userId), 0, 'logs erased')
    t.equal(await byUser('crash_reports', 'linked_user_id', gone.userId), 0, 'linked crash reports erased')
    t.equal(await byUser('crash_sessions', 'linked_user_id', gone.userId), 0, 'linked crash sessions erased')
    t.equal(await byUser('crash_group_users', 'linked_user_id', gone.userId), 0, 'no trace in the affected users')
    t.equal(await byUser('user_feedback', 'user_id', stays.userId), 1, 'other users keep theirs')
    t.equal(await byUser('user_logs', 'user_id', stays.userId), 1)
    const remaining = (await app.db.selectFrom('crash_reports').select('id').where('group_id', '=', groupId).execute())
      .map((r) => r.id)
      .sort()
    t.same(
      remaining,
      [otherUser.json().id, nonUuid.json().id, anonymous.json().id].sort(),
      'reports under other, non-UUID and anonymous userIds stay',
    )
    t.equal(
      (await app.db.selectFrom('user_feedback').select('id').where('user_id', 'is', null).execute()).length > 0,
      true,
      'anonymous feedback stays',
    )
    const g = (await admin({ method: 'GET', url: `/crash-reports/groups/${groupId}` })).json()
    t.equal(g.affectedUsers, 2)
    t.equal(g.recentOccurrences.length, 3)
    const logs = (await admin({ method: 'GET', url: `/user-logs?userId=${gone.userId}` })).json()
    t.same(logs.items, [])
  })
})
