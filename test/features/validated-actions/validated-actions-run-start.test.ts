// Starting a validated run: the board checks, the start context and initial state, and the limits on
// starts (maxRunsPerHour, maxOpenRuns) that hold under concurrent starts too.
import t from 'tap'
import { assertError, buildTestApp, eachDialect } from '../../helpers/app.js'
import { createUser } from '../../fixtures/users.js'
import { createBoard } from '../../fixtures/leaderboard.js'
import { SECOND, putRules, run, runDetail, startRun, submitRun } from '../../fixtures/validated-actions.js'

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  const { clock } = ctx

  t.test('run start: board checks and the start context', async (t) => {
    const user = await createUser(ctx)
    assertError(t, await startRun(ctx, user, 'no-such-board'), 404, 'LEADERBOARD_NOT_FOUND')
    await createBoard(ctx, 'retired', { isActive: false })
    assertError(t, await startRun(ctx, user, 'retired'), 404, 'LEADERBOARD_NOT_FOUND')
    await putRules(ctx, '_unbound', { evidenceMaxBytes: 16 })
    const context = {
      gameVersion: '1.4.2',
      contentVersion: 'levels-7',
      simulationVersion: 'sim 3',
      replayFormatVersion: 'r1',
      contentDigest: 'AB'.repeat(32),
      initialState: Buffer.alloc(16, 7).toString('base64'),
    }
    const started = await startRun(ctx, user, undefined, context)
    t.equal(started.statusCode, 200)
    const detail = await runDetail(ctx, started.json().runId)
    const { initialState: _, ...strings } = context
    t.same(detail.context, { ...strings, contentDigest: 'ab'.repeat(32), initialStateBytes: 16 })
    t.equal(detail.outcome, 'OPEN')
    assertError(
      t,
      await startRun(ctx, user, undefined, { initialState: 'not base64!' }),
      400,
      'INITIAL_STATE_INVALID_ENCODING',
    )
    assertError(
      t,
      await startRun(ctx, user, undefined, { initialState: 'QUJD' + '=' }),
      400,
      'INITIAL_STATE_INVALID_ENCODING',
    )
    assertError(
      t,
      await startRun(ctx, user, undefined, { initialState: Buffer.alloc(17).toString('base64') }),
      413,
      'INITIAL_STATE_TOO_LARGE',
    )
    assertError(t, await startRun(ctx, user, undefined, { contentDigest: 'abc' }), 400, 'VALIDATION_ERROR')
    assertError(t, await startRun(ctx, user, undefined, { gameVersion: 'x'.repeat(65) }), 400, 'VALIDATION_ERROR')
    assertError(t, await startRun(ctx, user, undefined, { gameVersion: 'tab\there' }), 400, 'VALIDATION_ERROR')
    const empty = await startRun(ctx, user, '', { gameVersion: '', initialState: null })
    t.equal(empty.statusCode, 200, 'empty strings and null count as absent')
    t.equal(empty.json().leaderboardKey, null)
    await putRules(ctx, '_unbound', {})
  })

  t.test('maxRunsPerHour: 429 RUN_RATE_LIMITED with Retry-After; maxOpenRuns: 429 RUN_CAPACITY_REACHED', async (t) => {
    await createBoard(ctx, 'limited')
    await putRules(ctx, 'limited', { maxRunsPerHour: 2 })
    const user = await createUser(ctx)
    await run(ctx, user, 'limited')
    clock.advance(600 * SECOND)
    await run(ctx, user, 'limited')
    const limited = await startRun(ctx, user, 'limited')
    assertError(t, limited, 429, 'RUN_RATE_LIMITED')
    t.equal(limited.headers['retry-after'], '3000', 'seconds until the oldest run leaves the hour')
    t.equal((await startRun(ctx, user)).statusCode, 200, 'counted per board: unbound runs have their own rules')
    clock.advance(2999 * SECOND)
    t.equal((await startRun(ctx, user, 'limited')).headers['retry-after'], '1')
    clock.advance(SECOND)
    t.equal((await startRun(ctx, user, 'limited')).statusCode, 200)

    await createBoard(ctx, 'capped')
    await putRules(ctx, 'capped', { maxOpenRuns: 1 })
    const first = await run(ctx, user, 'capped')
    assertError(t, await startRun(ctx, user, 'capped'), 429, 'RUN_CAPACITY_REACHED')
    t.equal((await submitRun(ctx, user, first.ticket, 1)).statusCode, 200)
    await run(ctx, user, 'capped')
    assertError(t, await startRun(ctx, user, 'capped'), 429, 'RUN_CAPACITY_REACHED')
    clock.advance(7200 * SECOND)
    t.equal((await startRun(ctx, user, 'capped')).statusCode, 200, 'an expired run no longer counts as open')
  })

  t.test('concurrent starts never pass maxOpenRuns', async (t) => {
    await createBoard(ctx, 'crowded')
    await putRules(ctx, 'crowded', { maxOpenRuns: 3 })
    const user = await createUser(ctx)
    const results = await Promise.all(Array.from({ length: 8 }, () => startRun(ctx, user, 'crowded')))
    t.equal(results.filter((r) => r.statusCode === 200).length, 3)
    t.equal(results.filter((r) => r.statusCode === 429 && r.json().code === 'RUN_CAPACITY_REACHED').length, 5)
  })
})
