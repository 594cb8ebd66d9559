// A board's run rules, checked at submit in their order: duration, score bounds and score rate, stages,
// and the daily limit of accepted runs; a rejection consumes the ticket.
import t from 'tap'
import { assertError, eachDialect } from '../../helpers/app.js'
import { createUser } from '../../fixtures/users.js'
import { board, createBoard } from '../../fixtures/leaderboard.js'
import { SECOND, buildWeeklyBoardApp, putRules, run, runDetail, submitRun } from '../../fixtures/validated-actions.js'

const HOUR = 3600 * SECOND

eachDialect(t, async (t, dialect) => {
  const ctx = await buildWeeklyBoardApp(t, dialect)
  const { call, clock } = ctx

  t.test('rule rejections consume the ticket: duration, score bounds, score rate', async (t) => {
    const user = await createUser(ctx)
    const cases: Array<[string, number, number]> = [
      ['DURATION_TOO_SHORT', 5, 100],
      ['SCORE_ABOVE_MAX', 200, 100_001],
      ['SCORE_BELOW_MIN', 200, -1],
      ['SCORE_RATE_TOO_HIGH', 20, 20_001],
    ]
    for (const [code, seconds, score] of cases) {
      const started = await run(ctx, user, 'weekly')
      clock.advance(seconds * SECOND)
      const body = assertError(t, await submitRun(ctx, user, started.ticket, score), 422, code)
      t.equal(body.runId, started.runId)
      assertError(t, await submitRun(ctx, user, started.ticket, 10), 422, 'TICKET_CONSUMED')
      t.match(await runDetail(ctx, started.runId), { outcome: 'REJECTED', reason: code })
    }
    const exact = await run(ctx, user, 'weekly')
    clock.advance(20 * SECOND)
    t.equal((await submitRun(ctx, user, exact.ticket, 20_000)).statusCode, 200, 'exactly at the rate is allowed')
    const rank = (await call({ method: 'GET', url: `${board('weekly')}/rank?userId=${user.userId}` })).json()
    t.equal(rank.score, 20_000, 'only the accepted run reached the board')
  })

  t.test(
    'stage rules: STAGE_REQUIRED, STAGE_UNKNOWN, STAGE_SCORE_ABOVE_MAX, STAGE_SCORE_BELOW_MIN, in order',
    async (t) => {
      await createBoard(ctx, 'staged')
      await putRules(ctx, 'staged', {
        stageRequired: true,
        stages: { wave_1: { maxScore: 100 }, wave_2: { minScore: 50 } },
        minDurationSeconds: 10,
      })
      const user = await createUser(ctx)
      const cases: Array<[string, string | undefined, number]> = [
        ['STAGE_REQUIRED', undefined, 10],
        ['STAGE_UNKNOWN', 'wave_9', 10],
        ['STAGE_SCORE_ABOVE_MAX', 'wave_1', 101],
        ['STAGE_SCORE_BELOW_MIN', 'wave_2', 49],
      ]
      for (const [code, stage, score] of cases) {
        const started = await run(ctx, user, 'staged')
        // The stage step comes before the duration step (the run is also too short).
        const body = assertError(t, await submitRun(ctx, user, started.ticket, score, { stage }), 422, code)
        t.equal(body.runId, started.runId)
        assertError(t, await submitRun(ctx, user, started.ticket, 10, { stage: 'wave_1' }), 422, 'TICKET_CONSUMED')
      }
      const ok = await run(ctx, user, 'staged')
      clock.advance(10 * SECOND)
      t.equal((await submitRun(ctx, user, ok.ticket, 100, { stage: 'wave_1' })).statusCode, 200)
    },
  )

  t.test('STAGE_UNKNOWN whenever stages are defined, stageRequired or not; no stages: any stage passes', async (t) => {
    await createBoard(ctx, 'staged-optional')
    await putRules(ctx, 'staged-optional', {
      stageRequired: false,
      stages: { wave_1: { maxScore: 100 } },
      minDurationSeconds: 10,
    })
    const user = await createUser(ctx)
    const unknown = await run(ctx, user, 'staged-optional')
    clock.advance(10 * SECOND)
    const body = assertError(
      t,
      await submitRun(ctx, user, unknown.ticket, 10, { stage: 'wave_9' }),
      422,
      'STAGE_UNKNOWN',
    )
    t.equal(body.runId, unknown.runId)
    const without = await run(ctx, user, 'staged-optional')
    clock.advance(10 * SECOND)
    t.equal((await submitRun(ctx, user, without.ticket, 10)).statusCode, 200, 'no stage: not required')
    const listed = await run(ctx, user, 'staged-optional')
    clock.advance(10 * SECOND)
    t.equal((await submitRun(ctx, user, listed.ticket, 20, { stage: 'wave_1' })).statusCode, 200, 'a listed stage')

    await createBoard(ctx, 'stageless')
    await putRules(ctx, 'stageless', { minDurationSeconds: 10 })
    const free = await run(ctx, user, 'stageless')
    clock.advance(10 * SECOND)
    t.equal(
      (await submitRun(ctx, user, free.ticket, 10, { stage: 'anything' })).statusCode,
      200,
      'no stages defined: any stage',
    )
  })

  t.test(
    'SCORE_LIMIT_REACHED after maxAcceptedRunsPerDay, before the other rules; a new UTC day resets it',
    async (t) => {
      await createBoard(ctx, 'daily')
      await putRules(ctx, 'daily', { maxAcceptedRunsPerDay: 2, minDurationSeconds: 1 })
      const user = await createUser(ctx)
      for (let i = 0; i < 2; i++) {
        const started = await run(ctx, user, 'daily')
        clock.advance(SECOND)
        t.equal((await submitRun(ctx, user, started.ticket, i)).statusCode, 200)
      }
      const third = await run(ctx, user, 'daily')
      const limited = assertError(t, await submitRun(ctx, user, third.ticket, 5), 403, 'SCORE_LIMIT_REACHED')
      t.equal(limited.runId, third.runId)
      assertError(t, await submitRun(ctx, user, third.ticket, 5), 422, 'TICKET_CONSUMED')
      const other = await createUser(ctx)
      const theirs = await run(ctx, other, 'daily')
      clock.advance(SECOND)
      t.equal((await submitRun(ctx, other, theirs.ticket, 5)).statusCode, 200, 'the limit is per player')
      clock.advance(24 * HOUR)
      const nextDay = await run(ctx, user, 'daily')
      clock.advance(SECOND)
      t.equal((await submitRun(ctx, user, nextDay.ticket, 5)).statusCode, 200)
    },
  )
})
