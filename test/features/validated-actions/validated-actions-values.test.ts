import t from 'tap'
import { assertError, buildTestApp, eachDialect } from '../../helpers/app.js'
import { createUser } from '../../fixtures/users.js'
import { createBoard } from '../../fixtures/leaderboard.js'
import { getState, putRules, putValue, run, startRun, submitRun } from '../../fixtures/validated-actions.js'

const MAX = Number.MAX_SAFE_INTEGER
const DAY = 24 * 3600 * 1000

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  const { admin, clock } = ctx
  await putValue(ctx, 'gold', { maxPerRun: 300, dailyCap: 400 })
  await putValue(ctx, 'chest.gold', { minPerRun: -10, maxPerRun: 10 })
  await putValue(ctx, 'gems', {})

  t.test('state lists every defined value, zero balances included', async (t) => {
    const user = await createUser(ctx)
    const res = await getState(ctx, user)
    t.equal(res.statusCode, 200)
    t.same(res.json(), {
      userId: user.userId,
      day: '2026-11-22',
      values: [
        { key: 'chest.gold', balance: 0, earnedToday: 0, dailyCap: null },
        { key: 'gems', balance: 0, earnedToday: 0, dailyCap: null },
        { key: 'gold', balance: 0, earnedToday: 0, dailyCap: 400 },
      ],
    })
  })

  t.test('an unbound run with earned: credits clamped by the daily cap, requested and credited in state', async (t) => {
    const user = await createUser(ctx)
    const first = await run(ctx, user)
    const res = await submitRun(ctx, user, first.ticket, 0, { earned: [{ key: 'gold', amount: 250 }] })
    t.equal(res.statusCode, 200)
    const body = res.json()
    t.match(body, {
      accepted: true,
      leaderboardKey: null,
      score: null,
      bestScore: null,
      rank: null,
      evidence: null,
      sus: false,
    })
    t.same(body.state, {
      userId: user.userId,
      day: '2026-11-22',
      values: [
        { key: 'chest.gold', balance: 0, earnedToday: 0, dailyCap: null },
        { key: 'gems', balance: 0, earnedToday: 0, dailyCap: null },
        { key: 'gold', balance: 250, earnedToday: 250, dailyCap: 400, requested: 250, credited: 250 },
      ],
    })
    const second = await run(ctx, user)
    const clamped = (await submitRun(ctx, user, second.ticket, 0, { earned: [{ key: 'gold', amount: 250 }] })).json()
    t.same(clamped.state.values[2], {
      key: 'gold',
      balance: 400,
      earnedToday: 400,
      dailyCap: 400,
      requested: 250,
      credited: 150,
    })
    const third = await run(ctx, user)
    const capped = (await submitRun(ctx, user, third.ticket, 0, { earned: [{ key: 'gold', amount: 5 }] })).json()
    t.match(
      capped.state.values[2],
      { balance: 400, requested: 5, credited: 0 },
      'at the cap: accepted, nothing credited',
    )
    t.same(
      (await getState(ctx, user)).json().values[2],
      { key: 'gold', balance: 400, earnedToday: 400, dailyCap: 400 },
      'state has no per-run fields',
    )

    clock.advance(DAY)
    const nextDay = await getState(ctx, user)
    t.equal(nextDay.json().day, '2026-11-23')
    t.same(nextDay.json().values[2], { key: 'gold', balance: 400, earnedToday: 0, dailyCap: 400 }, 'a new UTC day')
    const fourth = await run(ctx, user)
    const fresh = (await submitRun(ctx, user, fourth.ticket, 0, { earned: [{ key: 'gold', amount: 300 }] })).json()
    t.match(fresh.state.values[2], { balance: 700, earnedToday: 300, credited: 300 })
    const none = await run(ctx, user)
    t.equal((await submitRun(ctx, user, none.ticket, 0, { earned: [] })).json().state, null, 'no earned: state null')
  })

  t.test('each value code is 422 with runId and consumes the ticket; nothing changes', async (t) => {
    const user = await createUser(ctx)
    const cases: Array<[string, Array<{ key: string; amount: number }>]> = [
      ['UNKNOWN_VALUE_KEY', [{ key: 'silver', amount: 1 }]],
      ['UNKNOWN_VALUE_KEY', [{ key: 'GOLD', amount: 1 }]],
      [
        'DUPLICATE_VALUE_KEY',
        [
          { key: 'gold', amount: 1 },
          { key: 'gold', amount: 2 },
        ],
      ],
      ['EARNED_ABOVE_MAX', [{ key: 'gold', amount: 301 }]],
      ['EARNED_BELOW_MIN', [{ key: 'chest.gold', amount: -11 }]],
      // The credit before the refused spend is rolled back with it.
      [
        'INSUFFICIENT_BALANCE',
        [
          { key: 'gold', amount: 10 },
          { key: 'chest.gold', amount: -5 },
        ],
      ],
    ]
    for (const [code, earned] of cases) {
      const started = await run(ctx, user)
      const body = assertError(t, await submitRun(ctx, user, started.ticket, 0, { earned }), 422, code)
      t.equal(body.runId, started.runId)
      assertError(t, await submitRun(ctx, user, started.ticket, 0), 422, 'TICKET_CONSUMED')
    }
    const state = (await getState(ctx, user)).json()
    t.same(
      state.values.map((v: any) => v.balance),
      [0, 0, 0],
      'no balance moved',
    )
    const runs = (
      await admin({ method: 'GET', url: `/validated-actions/runs?userId=${user.userId}&outcome=REJECTED&limit=100` })
    ).json()
    t.same(runs.items.map((r: any) => r.reason).sort(), cases.map(([code]) => code).sort())
  })

  t.test('spends: credited in full or refused; the balance never goes below 0 or above 2^53−1', async (t) => {
    const user = await createUser(ctx)
    const adjust = (body: Record<string, unknown>) =>
      admin({ method: 'POST', url: `/users/${user.userId}/values`, payload: body })
    const credit = await adjust({ key: 'chest.gold', amount: 20, reason: 'support ticket 17' })
    t.equal(credit.statusCode, 200)
    t.match(credit.json(), {
      userId: user.userId,
      key: 'chest.gold',
      amount: 20,
      balance: 20,
      reason: 'support ticket 17',
      createdAt: new Date(clock.now()).toISOString(),
    })
    const spendRun = await run(ctx, user)
    const spent = (
      await submitRun(ctx, user, spendRun.ticket, 0, { earned: [{ key: 'chest.gold', amount: -5 }] })
    ).json()
    t.same(spent.state.values[0], {
      key: 'chest.gold',
      balance: 15,
      earnedToday: 0,
      dailyCap: null,
      requested: -5,
      credited: -5,
    })
    assertError(t, await adjust({ key: 'chest.gold', amount: -16 }), 422, 'INSUFFICIENT_BALANCE')
    clock.advance(1000)
    t.equal((await adjust({ key: 'chest.gold', amount: -15 })).json().balance, 0)
    assertError(t, await adjust({ key: 'silver', amount: 1 }), 422, 'UNKNOWN_VALUE_KEY')
    assertError(t, await adjust({ key: 'gems', amount: 0 }), 400, 'VALIDATION_ERROR')
    assertError(t, await adjust({ key: 'gems', amount: '5' }), 400, 'VALIDATION_ERROR')
    assertError(
      t,
      await admin({
        method: 'POST',
        url: '/users/7d1e0f9a-3b2c-4d5e-8f60-718293a4b5c6/values',
        payload: { key: 'gems', amount: 1 },
      }),
      404,
      'USER_NOT_FOUND',
    )

    clock.advance(1000)
    t.equal((await adjust({ key: 'gems', amount: MAX })).json().balance, MAX)
    assertError(t, await adjust({ key: 'gems', amount: 1 }), 400, 'VALIDATION_ERROR')
    const full = await run(ctx, user)
    const atMax = (await submitRun(ctx, user, full.ticket, 0, { earned: [{ key: 'gems', amount: 5 }] })).json()
    t.same(
      atMax.state.values[1],
      { key: 'gems', balance: MAX, earnedToday: 0, dailyCap: null, requested: 5, credited: 0 },
      'clamped by the largest balance',
    )
    t.equal(
      (await admin({ method: 'GET', url: `/users/${user.userId}/values` })).json().values[1].balance,
      MAX,
      '2^53−1 read back exactly',
    )

    const audit = (
      await admin({ method: 'GET', url: `/validated-actions/adjustments?userId=${user.userId}&limit=2` })
    ).json()
    t.same(
      audit.items.map((a: any) => [a.key, a.amount, a.balance]),
      [
        ['gems', MAX, MAX],
        ['chest.gold', -15, 0],
      ],
      'newest first',
    )
    const rest = (
      await admin({
        method: 'GET',
        url: `/validated-actions/adjustments?userId=${user.userId}&limit=2&cursor=${audit.nextCursor}`,
      })
    ).json()
    t.same(
      rest.items.map((a: any) => a.amount),
      [20],
    )
    t.equal(rest.nextCursor, null)
  })

  t.test('concurrent spends of one balance: each spend is applied or refused whole', async (t) => {
    const user = await createUser(ctx)
    await admin({ method: 'POST', url: `/users/${user.userId}/values`, payload: { key: 'chest.gold', amount: 10 } })
    const runs = []
    for (let i = 0; i < 5; i++) runs.push(await run(ctx, user))
    const results = await Promise.all(
      runs.map((r) => submitRun(ctx, user, r.ticket, 0, { earned: [{ key: 'chest.gold', amount: -3 }] })),
    )
    t.equal(results.filter((r) => r.statusCode === 200).length, 3)
    t.equal(results.filter((r) => r.statusCode === 422 && r.json().code === 'INSUFFICIENT_BALANCE').length, 2)
    t.equal((await getState(ctx, user)).json().values[0].balance, 1)
  })

  t.test('value and rule definitions (admin)', async (t) => {
    const def = await putValue(ctx, 'stars', { minPerRun: -1, maxPerRun: 5, dailyCap: null })
    t.match(def, {
      key: 'stars',
      minPerRun: -1,
      maxPerRun: 5,
      dailyCap: null,
      createdAt: new Date(clock.now()).toISOString(),
    })
    clock.advance(1000)
    const replaced = await putValue(ctx, 'stars', { dailyCap: 9 })
    t.match(replaced, { key: 'stars', minPerRun: null, maxPerRun: null, dailyCap: 9 }, 'a PUT replaces the definition')
    t.equal(replaced.createdAt, def.createdAt)
    t.not(replaced.updatedAt, def.updatedAt)
    assertError(
      t,
      await admin({ method: 'PUT', url: '/validated-actions/values/Stars', payload: {} }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(
      t,
      await admin({ method: 'PUT', url: '/validated-actions/values/x', payload: { minPerRun: 5, maxPerRun: 1 } }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(
      t,
      await admin({ method: 'PUT', url: '/validated-actions/values/x', payload: { dailyCap: -1 } }),
      400,
      'VALIDATION_ERROR',
    )
    const values = (await admin({ method: 'GET', url: '/validated-actions/values?limit=3' })).json()
    t.same(
      values.items.map((v: any) => v.key),
      ['chest.gold', 'gems', 'gold'],
      'by creation time, then key',
    )
    const more = (await admin({ method: 'GET', url: `/validated-actions/values?cursor=${values.nextCursor}` })).json()
    t.same(
      more.items.map((v: any) => v.key),
      ['stars'],
    )

    await createBoard(ctx, 'ruled')
    const rules = await putRules(ctx, 'ruled', {
      minDurationSeconds: 30,
      maxScore: 500,
      stages: { a: { maxScore: 10 } },
      stageRequired: true,
    })
    t.same(rules, {
      boardKey: 'ruled',
      minDurationSeconds: 30,
      minScore: null,
      maxScore: 500,
      maxScorePerSecond: null,
      stages: { a: { minScore: null, maxScore: 10 } },
      stageRequired: true,
      ticketTtlSeconds: 7200,
      maxRunsPerHour: null,
      maxOpenRuns: null,
      maxAcceptedRunsPerDay: null,
      susScore: null,
      susScorePerSecond: null,
      evidenceTopN: null,
      evidenceMaxBytes: 32768,
      createdAt: new Date(clock.now()).toISOString(),
      updatedAt: new Date(clock.now()).toISOString(),
    })
    const replacedRules = await putRules(ctx, 'ruled', { ticketTtlSeconds: 60, maxScorePerSecond: 2.5 })
    t.match(replacedRules, {
      minDurationSeconds: null,
      maxScore: null,
      stages: {},
      stageRequired: false,
      ticketTtlSeconds: 60,
      maxScorePerSecond: 2.5,
    })
    const user = await createUser(ctx)
    t.equal((await startRun(ctx, user, 'ruled')).json().expiresInSeconds, 60, 'the ticket lifetime follows the rules')
    const unbound = await putRules(ctx, '_unbound', { minDurationSeconds: 1 })
    t.equal(unbound.boardKey, '_unbound')
    const list = (await admin({ method: 'GET', url: '/validated-actions/rules' })).json()
    t.same(
      list.items.map((r: any) => r.boardKey),
      ['_unbound', 'ruled'],
    )
    await putRules(ctx, '_unbound', {})
    assertError(
      t,
      await admin({ method: 'PUT', url: '/validated-actions/rules/nope', payload: {} }),
      404,
      'LEADERBOARD_NOT_FOUND',
    )
    assertError(
      t,
      await admin({ method: 'PUT', url: '/validated-actions/rules/ruled', payload: { minScore: 5, maxScore: 1 } }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(
      t,
      await admin({
        method: 'PUT',
        url: '/validated-actions/rules/ruled',
        payload: { stages: { a: { minScore: 5, maxScore: 1 } } },
      }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(
      t,
      await admin({ method: 'PUT', url: '/validated-actions/rules/ruled', payload: { ticketTtlSeconds: 0 } }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(
      t,
      await admin({ method: 'PUT', url: '/validated-actions/rules/ruled', payload: { evidenceMaxBytes: 9_000_000 } }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(
      t,
      await admin({ method: 'PUT', url: '/validated-actions/rules/ruled', payload: { maxOpenRuns: '3' } }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(t, await ctx.call({ method: 'GET', url: '/validated-actions/rules' }), 404, 'NOT_FOUND')
  })

  t.test('deleting a user erases their runs, balances, submissions and audit rows', async (t) => {
    const user = await createUser(ctx)
    await admin({ method: 'POST', url: `/users/${user.userId}/values`, payload: { key: 'gems', amount: 3 } })
    const started = await run(ctx, user)
    await submitRun(ctx, user, started.ticket, 0, { earned: [{ key: 'gold', amount: 1 }] })
    t.equal((await admin({ method: 'DELETE', url: `/users/${user.userId}` })).statusCode, 200)
    const db = ctx.app.db
    for (const table of [
      'validated_runs',
      'validated_balances',
      'validated_submissions',
      'validated_adjustments',
      'validated_players',
    ] as const) {
      const rows = await db.selectFrom(table).select('user_id').where('user_id', '=', user.userId).execute()
      t.equal(rows.length, 0, table)
    }
  })
})
