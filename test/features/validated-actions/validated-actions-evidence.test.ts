import { randomUUID } from 'node:crypto'
import t from 'tap'
import { assertError, buildTestApp, eachDialect } from '../../helpers/app.js'
import { createUser } from '../../fixtures/users.js'
import { board, createBoard } from '../../fixtures/leaderboard.js'
import {
  LOG,
  LOG_BASE64,
  WRONG_LOG_BASE64,
  putRules,
  run,
  runDetail,
  sha256,
  submitRun,
  uploadEvidence,
} from '../../fixtures/validated-actions.js'

const SECOND = 1000
const DAY = 24 * 3600 * SECOND

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  const { admin, call, clock } = ctx
  await createBoard(ctx, 'arena')
  await putRules(ctx, 'arena', { evidenceTopN: 2, susScore: 10_000 })

  t.test('evidence for a top-N run: wrong bytes 422 (request stays open), right bytes 200, again 409', async (t) => {
    const user = await createUser(ctx)
    const started = await run(ctx, user, 'arena')
    clock.advance(30 * SECOND)
    const res = (await submitRun(ctx, user, started.ticket, 900)).json()
    t.match(res, { accepted: true, rank: 1, sus: false })
    t.same(res.evidence, {
      required: true,
      runId: started.runId,
      uploadBefore: new Date(clock.now() + DAY).toISOString(),
      maxBytes: 32768,
    })
    t.equal((await runDetail(ctx, started.runId)).evidence.status, 'REQUESTED')

    const wrong = assertError(
      t,
      await uploadEvidence(ctx, user, started.runId, WRONG_LOG_BASE64),
      422,
      'EVIDENCE_HASH_MISMATCH',
    )
    t.equal(wrong.runId, started.runId)
    assertError(t, await uploadEvidence(ctx, user, started.runId, 'not base64!'), 400, 'EVIDENCE_INVALID_ENCODING')
    assertError(t, await uploadEvidence(ctx, user, started.runId, 'UjE6TDI6SjM'), 400, 'EVIDENCE_INVALID_ENCODING')
    const other = await createUser(ctx)
    assertError(t, await uploadEvidence(ctx, other, started.runId, LOG_BASE64), 404, 'EVIDENCE_NOT_REQUESTED')
    t.equal((await runDetail(ctx, started.runId)).evidence.status, 'REQUESTED', 'still open')

    const ok = await uploadEvidence(ctx, user, started.runId, LOG_BASE64)
    t.equal(ok.statusCode, 200)
    t.same(ok.json(), { runId: started.runId, status: 'UPLOADED', bytes: 8 })
    assertError(t, await uploadEvidence(ctx, user, started.runId, LOG_BASE64), 409, 'EVIDENCE_ALREADY_UPLOADED')

    const download = await admin({ method: 'GET', url: `/validated-actions/runs/${started.runId}/evidence` })
    t.equal(download.statusCode, 200)
    t.match(download.headers['content-type'], /^application\/octet-stream/)
    t.same(download.rawPayload, LOG, 'the stored log, byte-exact')
    t.match((await runDetail(ctx, started.runId)).evidence, {
      status: 'UPLOADED',
      bytes: 8,
      maxBytes: 32768,
      uploadedAt: new Date(clock.now()).toISOString(),
    })
  })

  t.test('after the window: 410 EVIDENCE_EXPIRED', async (t) => {
    const user = await createUser(ctx)
    const started = await run(ctx, user, 'arena')
    const res = (await submitRun(ctx, user, started.ticket, 5000)).json()
    t.equal(res.rank, 1)
    t.ok(res.evidence.required)
    clock.advance(DAY)
    assertError(t, await uploadEvidence(ctx, user, started.runId, LOG_BASE64), 410, 'EVIDENCE_EXPIRED')
    t.equal((await runDetail(ctx, started.runId)).evidence.status, 'EXPIRED')
    assertError(
      t,
      await admin({ method: 'GET', url: `/validated-actions/runs/${started.runId}/evidence` }),
      404,
      'NOT_FOUND',
    )
  })

  t.test('no request outside the top N and for unbound runs: 404 EVIDENCE_NOT_REQUESTED', async (t) => {
    const user = await createUser(ctx)
    const low = await run(ctx, user, 'arena')
    const res = (await submitRun(ctx, user, low.ticket, 1)).json()
    t.ok(res.rank > 2)
    t.equal(res.evidence, null)
    assertError(t, await uploadEvidence(ctx, user, low.runId, LOG_BASE64), 404, 'EVIDENCE_NOT_REQUESTED')
    assertError(t, await uploadEvidence(ctx, user, randomUUID(), LOG_BASE64), 404, 'EVIDENCE_NOT_REQUESTED')
    // Not a UUID: answered like an unknown run (contract §5.3; the SDKs' mock-server tests expect it).
    assertError(t, await uploadEvidence(ctx, user, 'run-unknown', LOG_BASE64), 404, 'EVIDENCE_NOT_REQUESTED')
    t.equal((await runDetail(ctx, low.runId)).evidence.status, 'NONE')
  })

  t.test('a sus run is accepted, marked and asked for evidence; 413 over maxBytes', async (t) => {
    await createBoard(ctx, 'tiny')
    await putRules(ctx, 'tiny', { susScorePerSecond: 10, evidenceMaxBytes: 4 })
    const user = await createUser(ctx)
    const started = await run(ctx, user, 'tiny')
    clock.advance(10 * SECOND)
    const res = (await submitRun(ctx, user, started.ticket, 101)).json()
    t.match(res, { accepted: true, sus: true, rank: 1 })
    t.same(res.evidence, {
      required: true,
      runId: started.runId,
      uploadBefore: new Date(clock.now() + DAY).toISOString(),
      maxBytes: 4,
    })
    assertError(t, await uploadEvidence(ctx, user, started.runId, LOG_BASE64), 413, 'EVIDENCE_TOO_LARGE')
    t.same((await runDetail(ctx, started.runId)).susReasons, ['susScorePerSecond'])
    const plain = await run(ctx, user, 'tiny')
    clock.advance(10 * SECOND)
    t.equal((await submitRun(ctx, user, plain.ticket, 100)).json().sus, false, 'at the threshold is not over it')
  })

  t.test('concurrent uploads of one log: one stored, the others 409', async (t) => {
    await createBoard(ctx, 'solo')
    await putRules(ctx, 'solo', { evidenceTopN: 1 })
    const user = await createUser(ctx)
    const started = await run(ctx, user, 'solo')
    t.ok((await submitRun(ctx, user, started.ticket, 3, { inputLogHash: sha256(LOG) })).json().evidence.required)
    const results = await Promise.all(
      Array.from({ length: 5 }, () => uploadEvidence(ctx, user, started.runId, LOG_BASE64)),
    )
    t.equal(results.filter((r) => r.statusCode === 200).length, 1)
    t.equal(results.filter((r) => r.statusCode === 409).length, 4)
    const rows = await ctx.app.db
      .selectFrom('validated_evidence')
      .select('bytes')
      .where('run_id', '=', started.runId)
      .execute()
    t.same(rows, [{ bytes: 8 }])
  })

  t.test('admin run list: filters by player, outcome and sus, newest first, paged', async (t) => {
    await createBoard(ctx, 'listed')
    await putRules(ctx, 'listed', { susScore: 100, minDurationSeconds: 1 })
    const user = await createUser(ctx)
    const ids: string[] = []
    for (const score of [10, 500, 20]) {
      const started = await run(ctx, user, 'listed')
      clock.advance(2 * SECOND)
      await submitRun(ctx, user, started.ticket, score)
      ids.push(started.runId)
    }
    const short = await run(ctx, user, 'listed')
    await submitRun(ctx, user, short.ticket, 5)
    clock.advance(SECOND)
    const open = await run(ctx, user, 'listed')
    const list = (url: string) =>
      admin({ method: 'GET', url: `/validated-actions/runs?userId=${user.userId}${url}` }).then((r) => r.json())
    const all = await list('')
    t.same(
      all.items.map((r: any) => r.runId),
      [open.runId, short.runId, ids[2], ids[1], ids[0]],
    )
    t.same(
      (await list('&outcome=ACCEPTED')).items.map((r: any) => r.runId),
      [ids[2], ids[1], ids[0]],
    )
    const rejected = (await list('&outcome=REJECTED')).items
    t.same(
      rejected.map((r: any) => [r.runId, r.reason]),
      [[short.runId, 'DURATION_TOO_SHORT']],
    )
    t.same(
      (await list('&outcome=OPEN')).items.map((r: any) => r.runId),
      [open.runId],
    )
    t.same(
      (await list('&sus=true')).items.map((r: any) => r.runId),
      [ids[1]],
    )
    t.same(
      (await list('&sus=false&outcome=ACCEPTED')).items.map((r: any) => r.runId),
      [ids[2], ids[0]],
    )
    const first = await list('&limit=2')
    t.equal(first.items.length, 2)
    const second = await list(`&limit=2&cursor=${first.nextCursor}`)
    const third = await list(`&limit=2&cursor=${second.nextCursor}`)
    t.same(
      [...first.items, ...second.items, ...third.items].map((r: any) => r.runId),
      all.items.map((r: any) => r.runId),
    )
    t.equal(third.nextCursor, null)
    clock.advance(7200 * SECOND)
    t.same(
      (await list('&outcome=EXPIRED')).items.map((r: any) => r.runId),
      [open.runId],
    )
    assertError(t, await admin({ method: 'GET', url: '/validated-actions/runs?outcome=LOST' }), 400, 'VALIDATION_ERROR')
    assertError(t, await admin({ method: 'GET', url: '/validated-actions/runs?cursor=zzz' }), 400, 'VALIDATION_ERROR')
    assertError(t, await admin({ method: 'GET', url: `/validated-actions/runs/${randomUUID()}` }), 404, 'NOT_FOUND')
  })

  t.test('review: REJECTED takes the run score off the board; APPROVED after it is 409', async (t) => {
    await createBoard(ctx, 'judged')
    const cheat = await createUser(ctx)
    const honest = await createUser(ctx)
    const bad = await run(ctx, cheat, 'judged')
    await submitRun(ctx, cheat, bad.ticket, 9999)
    const good = await run(ctx, honest, 'judged')
    await submitRun(ctx, honest, good.ticket, 50)
    const review = (runId: string, verdict: string) =>
      admin({ method: 'POST', url: `/validated-actions/runs/${runId}/review`, payload: { verdict } })

    const approved = await review(good.runId, 'APPROVED')
    t.equal(approved.statusCode, 200)
    t.match(approved.json().review, { verdict: 'APPROVED', scoreRemoved: false })
    const rejected = await review(bad.runId, 'REJECTED')
    t.equal(rejected.statusCode, 200)
    t.match(rejected.json().review, {
      verdict: 'REJECTED',
      reviewedAt: new Date(clock.now()).toISOString(),
      scoreRemoved: true,
    })
    const top = (await call({ method: 'GET', url: `${board('judged')}/top` })).json()
    t.same(
      top.entries.map((e: any) => [e.userId, e.position]),
      [[honest.userId, 1]],
      'the rejected score left the board',
    )
    t.equal(top.total, 1)
    t.equal((await review(bad.runId, 'REJECTED')).statusCode, 200, 'REJECTED again changes nothing')
    assertError(t, await review(bad.runId, 'APPROVED'), 409, 'CONFLICT')
    t.match((await review(good.runId, 'REJECTED')).json().review, { verdict: 'REJECTED', scoreRemoved: true })

    // A later, better run owns the entry: rejecting the earlier one leaves the board alone.
    const first = await run(ctx, cheat, 'judged')
    await submitRun(ctx, cheat, first.ticket, 10)
    clock.advance(SECOND)
    const better = await run(ctx, cheat, 'judged')
    await submitRun(ctx, cheat, better.ticket, 20)
    t.match((await review(first.runId, 'REJECTED')).json().review, { scoreRemoved: false })
    t.equal((await call({ method: 'GET', url: `${board('judged')}/rank?userId=${cheat.userId}` })).json().score, 20)

    const refused = await run(ctx, cheat)
    await putRules(ctx, '_unbound', { minDurationSeconds: 5 })
    await submitRun(ctx, cheat, refused.ticket, 0)
    await putRules(ctx, '_unbound', {})
    assertError(t, await review(refused.runId, 'APPROVED'), 409, 'CONFLICT')
    assertError(t, await review(randomUUID(), 'APPROVED'), 404, 'NOT_FOUND')
    assertError(t, await review(bad.runId, 'MAYBE'), 400, 'VALIDATION_ERROR')
  })
})
