// A validated run's ticket from start to submit, as the Godot, Unity and Unreal SDKs send them: accepted
// with a rank, and each rejection that consumes the ticket or keeps it for a retry; sessions and bad
// input refused before the ticket is touched.
import t from 'tap'
import { assertError, eachDialect } from '../../helpers/app.js'
import { bearer, createUser } from '../../fixtures/users.js'
import { board, createBoard, submit } from '../../fixtures/leaderboard.js'
import {
  LOG_HASH,
  RUNS,
  SECOND,
  SUBMIT,
  buildWeeklyBoardApp,
  run,
  runDetail,
  startRun,
  submitRun,
} from '../../fixtures/validated-actions.js'

eachDialect(t, async (t, dialect) => {
  const ctx = await buildWeeklyBoardApp(t, dialect)
  const { call, admin, clock } = ctx

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
