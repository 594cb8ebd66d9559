import t from 'tap'
import { assertError, buildTestApp, eachDialect } from './helpers/app.js'
import { bearer, createUser } from './fixtures/users.js'
import { board, createBoard, submit } from './fixtures/leaderboard.js'
import { LOG_HASH, RUNS, SUBMIT, putRules, run, runDetail, startRun, submitRun } from './fixtures/validated-actions.js'

const SECOND = 1000
const HOUR = 3600 * SECOND

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  const { call, admin, clock } = ctx
  await createBoard(ctx, 'weekly', { validatedOnly: true })
  await putRules(ctx, 'weekly', { minDurationSeconds: 10, minScore: 0, maxScore: 100_000, maxScorePerSecond: 1000 })

  t.test('the Godot flow: start bound to a board, submit the hash of the log, accepted with rank', async (t) => {
    const user = await createUser(ctx)
    const started = await startRun(ctx, user, 'weekly')
    t.equal(started.statusCode, 200)
    const body = started.json()
    t.same(Object.keys(body).sort(), [
      'expiresAt',
      'expiresInSeconds',
      'issuedAt',
      'leaderboardKey',
      'runId',
      'seed',
      'ticket',
    ])
    t.match(body.runId, /^[0-9a-f-]{36}$/)
    t.ok(body.ticket.length >= 40, 'an opaque random ticket')
    t.ok(Number.isInteger(body.seed) && body.seed >= 0 && body.seed <= 2 ** 31 - 1, 'seed 0 … 2^31−1')
    t.equal(body.leaderboardKey, 'weekly')
    t.equal(body.issuedAt, new Date(clock.now()).toISOString())
    t.equal(body.expiresAt, new Date(clock.now() + 7200 * SECOND).toISOString())
    t.equal(body.expiresInSeconds, 7200)
    const stored = await ctx.app.db
      .selectFrom('validated_runs')
      .select('ticket_hash')
      .where('id', '=', body.runId)
      .executeTakeFirstOrThrow()
    t.not(stored.ticket_hash, body.ticket, 'the ticket is stored only hashed')
    t.notMatch(JSON.stringify(stored), body.ticket)

    clock.advance(60 * SECOND)
    const res = await submitRun(ctx, user, body.ticket, 5000, { stage: 'wave_3' })
    t.equal(res.statusCode, 200)
    t.same(res.json(), {
      accepted: true,
      runId: body.runId,
      leaderboardKey: 'weekly',
      score: 5000,
      bestScore: 5000,
      isNewHighScore: true,
      rank: 1,
      durationSeconds: 60,
      state: null,
      evidence: null,
      sus: false,
    })
    t.notMatch(res.body, /": /, 'compact JSON')
    const top = (await call({ method: 'GET', url: `${board('weekly')}/top` })).json()
    t.same(
      top.entries.map((e: any) => [e.userId, e.score]),
      [[user.userId, 5000]],
      'the validated run wrote the validatedOnly board',
    )

    // A lower run keeps the best entry: bestScore is the stored score, the rank that of the best entry.
    const second = await run(ctx, user, 'weekly')
    clock.advance(20 * SECOND)
    const lower = (await submitRun(ctx, user, second.ticket, 1000, { leaderboardKey: 'weekly' })).json()
    t.match(lower, {
      accepted: true,
      score: 1000,
      bestScore: 5000,
      isNewHighScore: false,
      rank: 1,
      durationSeconds: 20,
    })

    const again = assertError(t, await submitRun(ctx, user, body.ticket, 5000), 422, 'TICKET_CONSUMED')
    t.equal(again.runId, body.runId, 'rejections carry runId')
    const invalid = assertError(t, await submitRun(ctx, user, 'not-a-ticket', 5000), 422, 'TICKET_INVALID')
    t.notOk('runId' in invalid, 'TICKET_INVALID has no run')
    const detail = await runDetail(ctx, body.runId)
    t.match(detail, {
      outcome: 'ACCEPTED',
      reason: null,
      durationSeconds: 60,
      durationMs: 60_000,
      score: 5000,
      stage: 'wave_3',
      inputLogHash: LOG_HASH,
    })
    t.same(
      detail.submissions.map((s: any) => s.code),
      ['ACCEPTED', 'TICKET_CONSUMED'],
      'every outcome is recorded',
    )
  })

  t.test('a direct submit to a validatedOnly board is 403 VALIDATED_SUBMIT_REQUIRED', async (t) => {
    const user = await createUser(ctx)
    assertError(
      t,
      await submit(ctx, 'weekly', user.userId, 999, { leaderboardKey: 'weekly' }),
      403,
      'VALIDATED_SUBMIT_REQUIRED',
    )
    const rank = (await call({ method: 'GET', url: `${board('weekly')}/rank?userId=${user.userId}` })).json()
    t.equal(rank.ranked, false, 'nothing stored')
  })

  t.test('TICKET_FOREIGN is kept: the owner can still submit', async (t) => {
    const owner = await createUser(ctx)
    const other = await createUser(ctx)
    const started = await run(ctx, owner, 'weekly')
    clock.advance(30 * SECOND)
    const foreign = assertError(t, await submitRun(ctx, other, started.ticket, 100), 422, 'TICKET_FOREIGN')
    t.equal(foreign.runId, started.runId)
    t.equal((await submitRun(ctx, owner, started.ticket, 100)).statusCode, 200)
  })

  t.test('TICKET_EXPIRED with a moved clock consumes the ticket', async (t) => {
    const user = await createUser(ctx)
    const started = await run(ctx, user, 'weekly')
    clock.advance(7200 * SECOND)
    const expired = assertError(t, await submitRun(ctx, user, started.ticket, 100), 422, 'TICKET_EXPIRED')
    t.equal(expired.runId, started.runId)
    assertError(t, await submitRun(ctx, user, started.ticket, 100), 422, 'TICKET_CONSUMED')
    t.match(await runDetail(ctx, started.runId), { outcome: 'REJECTED', reason: 'TICKET_EXPIRED' })
  })

  t.test('LEADERBOARD_MISMATCH is kept: a retry with the same ticket is accepted', async (t) => {
    await createBoard(ctx, 'monthly')
    const user = await createUser(ctx)
    const started = await run(ctx, user, 'weekly')
    clock.advance(30 * SECOND)
    const mismatch = assertError(
      t,
      await submitRun(ctx, user, started.ticket, 700, { leaderboardKey: 'monthly' }),
      422,
      'LEADERBOARD_MISMATCH',
    )
    t.equal(mismatch.runId, started.runId)
    const retry = await submitRun(ctx, user, started.ticket, 700)
    t.equal(retry.statusCode, 200)
    t.equal(retry.json().leaderboardKey, 'weekly')

    const unbound = await run(ctx, user)
    t.equal(unbound.leaderboardKey, null)
    assertError(
      t,
      await submitRun(ctx, user, unbound.ticket, 0, { leaderboardKey: 'weekly' }),
      422,
      'LEADERBOARD_MISMATCH',
    )
    const ok = (await submitRun(ctx, user, unbound.ticket, 0, { leaderboardKey: '' })).json()
    t.match(ok, {
      accepted: true,
      leaderboardKey: null,
      score: null,
      bestScore: null,
      rank: null,
      isNewHighScore: false,
    })
  })

  t.test('PLAYER_BANNED is kept: the same ticket works after an unban', async (t) => {
    const user = await createUser(ctx)
    const started = await run(ctx, user, 'weekly')
    clock.advance(30 * SECOND)
    t.equal(
      (await admin({ method: 'PUT', url: `/leaderboards/weekly/bans/${user.userId}`, payload: {} })).statusCode,
      200,
    )
    const banned = assertError(t, await submitRun(ctx, user, started.ticket, 900), 403, 'PLAYER_BANNED')
    t.equal(banned.runId, started.runId)
    assertError(t, await startRun(ctx, user, 'weekly'), 403, 'PLAYER_BANNED')
    t.equal((await startRun(ctx, user)).statusCode, 200, 'unbound runs are not the board ban’s business')
    t.equal((await admin({ method: 'DELETE', url: `/leaderboards/weekly/bans/${user.userId}` })).statusCode, 200)
    clock.advance(SECOND)
    const retry = await submitRun(ctx, user, started.ticket, 900)
    t.equal(retry.statusCode, 200)
    t.same(
      (await runDetail(ctx, started.runId)).submissions.map((s: any) => s.code),
      ['PLAYER_BANNED', 'ACCEPTED'],
    )
  })

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

  t.test(
    'the Unity and Unreal forms: empty strings, null context and an empty earned list count as absent',
    async (t) => {
      const user = await createUser(ctx)
      const started = await call({
        method: 'POST',
        url: RUNS,
        headers: bearer(user),
        payload: { userId: user.userId, leaderboardKey: 'weekly', context: null },
      })
      t.equal(started.statusCode, 200)
      const { ticket, runId } = started.json()
      clock.advance(15 * SECOND)
      const payload = {
        userId: user.userId,
        ticket,
        inputLogHash: LOG_HASH,
        score: 42,
        stage: '',
        leaderboardKey: '',
        earned: [],
      }
      const res = await call({ method: 'POST', url: SUBMIT, headers: bearer(user), payload })
      t.equal(res.statusCode, 200)
      t.match(res.json(), {
        accepted: true,
        runId,
        leaderboardKey: 'weekly',
        score: 42,
        durationSeconds: 15,
        state: null,
      })
    },
  )

  t.test('sessions, bad inputs: clear 4xx, nothing consumed', async (t) => {
    const user = await createUser(ctx)
    const other = await createUser(ctx)
    const started = await run(ctx, user, 'weekly')
    const payload = { userId: user.userId, ticket: started.ticket, inputLogHash: LOG_HASH, score: 10 }
    assertError(t, await call({ method: 'POST', url: SUBMIT, payload }), 401, 'SESSION_REQUIRED')
    assertError(
      t,
      await call({ method: 'POST', url: SUBMIT, headers: bearer(other), payload }),
      403,
      'SESSION_FORBIDDEN',
    )
    assertError(t, await call({ method: 'POST', url: RUNS, payload: { userId: user.userId } }), 401, 'SESSION_REQUIRED')
    assertError(
      t,
      await call({ method: 'GET', url: `/validated-actions/state?userId=${user.userId}` }),
      401,
      'SESSION_REQUIRED',
    )
    const bad: Array<Record<string, unknown>> = [
      { score: '10' },
      { score: 1.5 },
      { inputLogHash: 'abc' },
      { inputLogHash: 'g'.repeat(64) },
      { ticket: 5 },
      { ticket: undefined },
      { earned: [{ key: 'gold', amount: 0 }] },
      { earned: [{ key: 'gold', amount: '5' }] },
      { earned: Array.from({ length: 65 }, (_, i) => ({ key: `k${i}`, amount: 1 })) },
      { stage: 'x'.repeat(65) },
      { userId: 'not-a-uuid' },
    ]
    for (const change of bad) {
      const res = await call({ method: 'POST', url: SUBMIT, headers: bearer(user), payload: { ...payload, ...change } })
      assertError(t, res, 400, 'VALIDATION_ERROR')
    }
    const malformed = await call({
      method: 'POST',
      url: SUBMIT,
      headers: { ...bearer(user), 'content-type': 'application/json' },
      payload: '{"userId":',
    })
    assertError(t, malformed, 400, 'INVALID_JSON')
    clock.advance(30 * SECOND)
    const ok = await call({
      method: 'POST',
      url: SUBMIT,
      headers: bearer(user),
      payload: { ...payload, inputLogHash: LOG_HASH.toUpperCase() },
    })
    t.equal(ok.statusCode, 200, 'the ticket survived every bad request; the hash is accepted in any case')
    t.equal((await runDetail(ctx, started.runId)).inputLogHash, LOG_HASH, 'stored lower-case')
  })
})
