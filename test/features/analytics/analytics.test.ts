import { randomUUID } from 'node:crypto'
import t, { type Test } from 'tap'
import { assertError, buildTestApp, eachDialect, TestClock, type Dialect, type TestApp } from '../../helpers/app.js'
import { createUser, type SignedUpUser } from '../../fixtures/users.js'
import { createBoard, submit } from '../../fixtures/leaderboard.js'
import { createGiftCode, redeemCode } from '../../fixtures/gift-codes.js'
import { report, SESSION } from '../../fixtures/crash-reporting.js'
import { FEEDBACK } from '../../fixtures/live-ops.js'

/**
 * Analytics (contract §12) on both databases, with the test clock: every daily series exact over a range
 * with an empty day, the retention of a cohort built by hand (an empty cohort's shares null, not 0),
 * the CSV forms, the exact totals, and the strict query validation (the histogram has its own file).
 */

const DAY = 86_400_000
const at = (iso: string) => Date.parse(iso)

/** A fresh app whose clock starts at `start`. */
const appAt = (t: Test, dialect: Dialect, start: string) =>
  buildTestApp(t, dialect, { clock: new TestClock(at(start)) })

/** Writes the waiting activity marks and submit counts, then runs the rollup job (its period has passed). */
async function rollUp(ctx: TestApp) {
  await ctx.app.analytics.flush()
  ctx.clock.advance(31_000)
  const ran = await ctx.app.jobs.runDue()
  if (!ran.includes('analytics-rollup')) throw new Error(`the rollup did not run: ${ran.join(', ')}`)
}

const activity = (ctx: TestApp, user: SignedUpUser) =>
  ctx.call({ method: 'POST', url: '/user-logs/create', payload: { userId: user.userId, message: 'hi', type: 'INFO' } })

async function crashSession(ctx: TestApp, sessionId: string, appVersion: string) {
  const res = await ctx.call({ method: 'POST', url: SESSION, payload: { sessionId, appVersion, platform: 'android' } })
  if (res.statusCode !== 201) throw new Error(`session: ${res.statusCode} ${res.body}`)
}

/** An e-mail the worker finished at `processedAt` (the worker itself needs SMTP; its own tests cover it). */
async function finishedEmail(ctx: TestApp, userId: string, status: 'sent' | 'failed', processedAt: number) {
  await ctx.app.db
    .insertInto('emails')
    .values({
      id: randomUUID(),
      user_id: userId,
      template_slug: 'welcome',
      language: 'en',
      recipient: 'p@example.com',
      subject: 'Hello',
      html: '<p>Hello</p>',
      text_body: null,
      is_account: 0,
      status,
      scheduled_at: processedAt,
      next_attempt_at: processedAt,
      attempts: 1,
      claim_token: null,
      claimed_at: null,
      processed_at: processedAt,
      error_reason: status === 'failed' ? 'No such mailbox' : null,
      created_at: processedAt,
      updated_at: processedAt,
    })
    .execute()
}

eachDialect(t, async (t, dialect) => {
  t.test('every daily series is exact, days without anything included', async (t) => {
    const ctx = await appAt(t, dialect, '2026-11-20T08:00:00.000Z')
    const { clock } = ctx
    // 2026-11-20: three sign-ups (each active), three crash sessions on two versions, one crashed.
    const [u1, u2, u3] = [await createUser(ctx), await createUser(ctx), await createUser(ctx)]
    await createBoard(ctx, 'arena')
    await crashSession(ctx, 's1', '1.0')
    await crashSession(ctx, 's2', '1.0')
    await crashSession(ctx, 's3', '1.1')
    t.equal((await report(ctx, { sessionId: 's1', appVersion: '1.0', message: 'boom' })).statusCode, 201)
    t.equal((await submit(ctx, 'default', u1!.userId, 10)).statusCode, 200)
    t.equal((await submit(ctx, 'arena', u2!.userId, 5)).statusCode, 200)
    t.equal((await submit(ctx, 'arena', u2!.userId, 7)).statusCode, 200)
    const feedback = await ctx.call({
      method: 'POST',
      url: FEEDBACK,
      payload: { userId: u1!.userId, title: 'Hi', message: 'Nice game' },
    })
    t.equal(feedback.statusCode, 200)
    const code = await createGiftCode(ctx, { code: 'WELCOME-1' })
    t.equal((await redeemCode(ctx, u3!, code.code)).json().success, true)
    await finishedEmail(ctx, u1!.userId, 'sent', clock.now())
    await finishedEmail(ctx, u2!.userId, 'failed', clock.now())
    await rollUp(ctx)
    // 2026-11-21: nothing. 2026-11-22: one returning player and one sign-up.
    clock.advance(2 * DAY)
    t.equal((await activity(ctx, u1!)).statusCode, 201)
    await createUser(ctx)
    // A failed request names a player but marks nobody.
    t.equal((await submit(ctx, 'nowhere', u2!.userId, 1)).statusCode, 404)
    await rollUp(ctx)

    const daily = async (query: string) => {
      const res = await ctx.admin({ method: 'GET', url: `/analytics/daily?from=2026-11-20&to=2026-11-22${query}` })
      t.equal(res.statusCode, 200, res.body)
      return res.json()
    }
    const all = await daily('')
    t.same(all.days, ['2026-11-20', '2026-11-21', '2026-11-22'])
    t.equal(all.from, '2026-11-20')
    t.equal(all.to, '2026-11-22')
    t.same(all.series, {
      signups: [3, 0, 1],
      active: [3, 0, 2],
      sessions: [3, 0, 0],
      crashFreeRate: [2 / 3, null, null],
      crashes: [1, 0, 0],
      submits: [3, 0, 0],
      redemptions: [1, 0, 0],
      feedback: [1, 0, 0],
      emailsSent: [1, 0, 0],
      emailsFailed: [1, 0, 0],
    })
    t.same(Object.keys(all.series), [
      'signups',
      'active',
      'sessions',
      'crashFreeRate',
      'crashes',
      'submits',
      'redemptions',
      'feedback',
      'emailsSent',
      'emailsFailed',
    ])

    const v10 = await daily('&appVersion=1.0&metrics=sessions,crashes,crashFreeRate')
    t.same(v10.series, { sessions: [2, 0, 0], crashes: [1, 0, 0], crashFreeRate: [0.5, null, null] })
    const v11 = await daily('&appVersion=1.1&metrics=crashFreeRate')
    t.same(v11.series, { crashFreeRate: [1, null, null] })
    const none = await daily('&appVersion=9.9&metrics=crashFreeRate,sessions')
    t.same(none.series, { crashFreeRate: [null, null, null], sessions: [0, 0, 0] })
    t.same((await daily('&leaderboardKey=arena&metrics=submits')).series, { submits: [2, 0, 0] })
    t.same((await daily('&leaderboardKey=default&metrics=submits')).series, { submits: [1, 0, 0] })
    t.same(
      (await daily('&metrics=active, signups')).series,
      { active: [3, 0, 2], signups: [3, 0, 1] },
      'only the metrics asked for',
    )

    // The rows of the past days were built once and for good; today's are rebuilt on each run.
    const built = await ctx.app.db.selectFrom('analytics_days').select('day').orderBy('day').execute()
    t.same(
      built.map((r) => Number(r.day)),
      [at('2026-11-20T00:00:00Z') / DAY, at('2026-11-21T00:00:00Z') / DAY],
    )
    await createUser(ctx)
    await rollUp(ctx)
    t.same((await daily('&metrics=signups')).series.signups, [3, 0, 2], "today's row follows")

    t.test('CSV with a header row', async (t) => {
      const res = await ctx.admin({
        method: 'GET',
        url: '/analytics/daily?from=2026-11-20&to=2026-11-22&metrics=signups,crashFreeRate',
        headers: { accept: 'text/csv' },
      })
      t.equal(res.statusCode, 200)
      t.match(res.headers['content-type'], /^text\/csv/)
      t.equal(
        res.body,
        'date,signups,crashFreeRate\r\n2026-11-20,3,0.6666666666666666\r\n2026-11-21,0,\r\n2026-11-22,2,\r\n',
      )
      const json = await ctx.admin({
        method: 'GET',
        url: '/analytics/daily?metrics=signups',
        headers: { accept: 'application/json' },
      })
      t.match(json.headers['content-type'], /^application\/json/)
    })

    t.test('the default range is the last 30 days up to today', async (t) => {
      const res = await ctx.admin({ method: 'GET', url: '/analytics/daily?metrics=signups' })
      const body = res.json()
      t.equal(body.days.length, 30)
      t.equal(body.to, '2026-11-22')
      t.equal(body.from, '2026-10-24')
      t.same(body.series.signups.slice(-3), [3, 0, 2])
      t.equal(
        body.series.signups.slice(0, -3).reduce((a: number, b: number) => a + b, 0),
        0,
      )
    })
  })

  t.test('strict queries: unknown metric, bad dates, reversed and long ranges', async (t) => {
    const ctx = await appAt(t, dialect, '2026-11-22T08:00:00.000Z')
    const get = (url: string) => ctx.admin({ method: 'GET', url })
    const unknown = assertError(t, await get('/analytics/daily?metrics=active,players'), 400, 'VALIDATION_ERROR')
    t.match(unknown.message, /'players'/)
    t.match(
      unknown.message,
      /allowed: signups, active, sessions, crashFreeRate, crashes, submits, redemptions, feedback, emailsSent, emailsFailed/,
    )
    for (const bad of ['2026-13-01', '2026-02-30', '20261120', '2026-1-5', 'yesterday']) {
      const body = assertError(t, await get(`/analytics/daily?from=${bad}`), 400, 'VALIDATION_ERROR')
      t.match(body.message, /from/, `${bad}: names the parameter`)
    }
    const reversed = assertError(
      t,
      await get('/analytics/retention?from=2026-11-22&to=2026-11-21'),
      400,
      'VALIDATION_ERROR',
    )
    t.match(reversed.message, /from \(2026-11-22\) is after to \(2026-11-21\)/)
    const long = assertError(t, await get('/analytics/daily?from=2025-11-20&to=2026-11-21'), 400, 'VALIDATION_ERROR')
    t.match(long.message, /367 days; at most 366/)
    t.equal((await get('/analytics/daily?from=2025-11-21&to=2026-11-21')).statusCode, 200, '366 days are fine')
    assertError(t, await get('/analytics/daily?limit=3'), 400, 'VALIDATION_ERROR')
    assertError(t, await get('/analytics/counts?x=1'), 400, 'VALIDATION_ERROR')
    assertError(t, await get('/leaderboards/default/histogram?buckets=0'), 400, 'VALIDATION_ERROR')
    assertError(t, await get('/leaderboards/default/histogram?buckets=101'), 400, 'VALIDATION_ERROR')
    assertError(t, await get('/leaderboards/nope/histogram'), 404, 'LEADERBOARD_NOT_FOUND')
  })

  t.test('retention of a cohort built by hand', async (t) => {
    const ctx = await appAt(t, dialect, '2026-10-01T09:00:00.000Z')
    const { clock } = ctx
    const cohort = [await createUser(ctx), await createUser(ctx), await createUser(ctx), await createUser(ctx)]
    const [a, b, c, d] = cohort as [SignedUpUser, SignedUpUser, SignedUpUser, SignedUpUser]
    await rollUp(ctx)
    clock.advance(DAY) // day 1: a and b come back
    await activity(ctx, a)
    await activity(ctx, b)
    await rollUp(ctx)
    const early = (await ctx.admin({ method: 'GET', url: '/analytics/retention?from=2026-10-01&to=2026-10-02' })).json()
    t.same(early.cohorts, [
      { date: '2026-10-01', size: 4, d1: 0.5, d7: null, d30: null },
      { date: '2026-10-02', size: 0, d1: null, d7: null, d30: null },
    ])
    clock.advance(6 * DAY) // day 7: c alone
    await activity(ctx, c)
    await rollUp(ctx)
    clock.advance(23 * DAY) // day 30: a, c and d
    for (const user of [a, c, d]) await activity(ctx, user)
    await rollUp(ctx)
    const res = await ctx.admin({ method: 'GET', url: '/analytics/retention?from=2026-10-01&to=2026-10-01' })
    t.same(res.json(), { cohorts: [{ date: '2026-10-01', size: 4, d1: 0.5, d7: 0.25, d30: 0.75 }] })
    // Nobody signed up on 10-02: its day 1 and day 7 have passed, and their shares are null, not 0.
    const empty = await ctx.admin({ method: 'GET', url: '/analytics/retention?from=2026-10-02&to=2026-10-02' })
    t.same(empty.json(), { cohorts: [{ date: '2026-10-02', size: 0, d1: null, d7: null, d30: null }] })
    const csv = await ctx.admin({
      method: 'GET',
      url: '/analytics/retention?from=2026-10-01&to=2026-10-02',
      headers: { accept: 'text/csv' },
    })
    t.match(csv.headers['content-type'], /^text\/csv/)
    t.equal(csv.body, 'date,size,d1,d7,d30\r\n2026-10-01,4,0.5,0.25,0.75\r\n2026-10-02,0,,,\r\n')
    const active = (
      await ctx.admin({ method: 'GET', url: '/analytics/daily?from=2026-10-01&to=2026-10-08&metrics=active' })
    ).json()
    t.same(active.series.active, [4, 2, 0, 0, 0, 0, 0, 1], 'active per day across days')
  })

  t.test('exact totals above 100', async (t) => {
    const ctx = await appAt(t, dialect, '2026-11-22T08:00:00.000Z')
    const users: SignedUpUser[] = []
    for (let i = 0; i < 12; i++) users.push(...(await Promise.all(Array.from({ length: 10 }, () => createUser(ctx)))))
    for (const user of users.slice(0, 2)) {
      t.equal((await ctx.admin({ method: 'POST', url: `/users/${user.userId}/ban`, payload: {} })).statusCode, 200)
    }
    for (const user of users.slice(2, 107)) t.equal((await submit(ctx, 'default', user.userId, 5)).statusCode, 200)
    await ctx.app.analytics.flush()
    const res = await ctx.admin({ method: 'GET', url: '/analytics/counts' })
    t.equal(res.statusCode, 200)
    t.same(res.json(), {
      players: 120,
      playersByKind: { anonymous: 120, email: 0, apple: 0, google: 0 },
      bannedPlayers: 2,
      activeToday: 120,
      boards: 1,
      entries: 105,
      saves: 0,
      giftCodes: 0,
      openCrashGroups: 0,
      pendingReviews: 0,
      emailsQueued: 0,
      feedback: 0,
    })
  })
})
