// GET /api/v1/admin/users/{userId}/export: everything stored about one player, from every feature,
// nothing of another player, and no secret (password hash, token digests, account e-mail bodies).
import t from 'tap'
import { assertError, buildTestApp, eachDialect } from '../../helpers/app.js'
import { createUser, bearer } from '../../fixtures/users.js'
import { createEmailUser, MANUAL_WORKER, putTemplate } from '../../fixtures/email.js'
import { createCosmetic } from '../../fixtures/player-profile.js'
import { createBoard, submit } from '../../fixtures/leaderboard.js'
import { createGiftCode, redeemCode } from '../../fixtures/gift-codes.js'
import { unity as saves } from '../../fixtures/cloud-save.js'
import { unity as crashes } from '../../fixtures/crash-reporting.js'
import { putValue, run } from '../../fixtures/validated-actions.js'
import { hashToken } from '../../../platform/security/secrets.js'

eachDialect(t, async (t, dialect) => {
  // SMTP is configured (so e-mails are queued) but the worker never runs: the e-mails stay pending.
  const ctx = await buildTestApp(t, dialect, { env: { SMTP_URL: 'smtp://127.0.0.1:9', ...MANUAL_WORKER } })
  const { call, admin } = ctx

  // ---- player A: something in every feature --------------------------------------------------
  const a = await createEmailUser(ctx, { username: 'Ada' })
  const ada = { ...a, username: 'Ada', anonymousToken: '', refreshToken: null }
  await createCosmetic(ctx, 'av-fox', 'avatar')
  await createCosmetic(ctx, 'badge-star', 'badge')
  await createCosmetic(ctx, 'frame-gold', 'frame', true)
  t.equal(
    (await admin({ method: 'POST', url: `/users/${a.userId}/unlocks`, payload: { ids: ['frame-gold'] } })).statusCode,
    200,
  )
  const profile = await call({
    method: 'PUT',
    url: '/player-profile',
    headers: bearer(a),
    payload: { userId: a.userId, avatarId: 'av-fox', badges: ['badge-star'], customData: { title: 'Explorer' } },
  })
  t.equal(profile.statusCode, 200, profile.body)
  t.equal(
    (await call({ method: 'POST', url: '/leaderboard/submit', payload: { userId: a.userId, score: 4321 } })).statusCode,
    200,
  )
  await createBoard(ctx, 'weekly')
  t.equal((await submit(ctx, 'weekly', a.userId, 77, { metadata: { map: 'dunes' } })).statusCode, 200)
  await createBoard(ctx, 'pvp')
  t.equal(
    (await admin({ method: 'PUT', url: `/leaderboards/pvp/bans/${a.userId}`, payload: { reason: 'smurfing' } }))
      .statusCode,
    200,
  )
  const binary = Buffer.from([0, 1, 2, 254, 255, 10, 13])
  t.equal((await saves.saveBytes(ctx, ada, binary)).statusCode, 200)
  await putValue(ctx, 'gems', {})
  const adjust = await admin({
    method: 'POST',
    url: `/users/${a.userId}/values`,
    payload: { key: 'gems', amount: 50, reason: 'support refund' },
  })
  t.equal(adjust.statusCode, 200, adjust.body)
  const started = await run(ctx, ada)
  await createGiftCode(ctx, { code: 'WELCOME1', giftData: 'starter-pack' })
  t.equal((await redeemCode(ctx, a, 'WELCOME1')).json().success, true)
  await putTemplate(ctx, 'prize')
  const mail = await call({
    method: 'POST',
    url: '/email-sending/send',
    headers: bearer(a),
    payload: {
      userId: a.userId,
      templateSlug: 'prize',
      language: 'en',
      variables: { name: 'Ada', prize: 'a golden hat' },
    },
  })
  t.ok(mail.statusCode < 300, mail.body)
  t.equal(
    (
      await call({
        method: 'POST',
        url: '/user-feedback/submit',
        payload: { userId: a.userId, title: 'Ada feedback', message: 'Love the dunes map' },
      })
    ).statusCode,
    200,
  )
  t.ok(
    (
      await call({
        method: 'POST',
        url: '/user-logs/create',
        payload: { userId: a.userId, message: 'Ada reached level 9', type: 'INFO' },
      })
    ).statusCode < 300,
  )
  t.ok((await crashes.session(ctx, { sessionId: 'ada-run-1', userId: a.userId })).statusCode < 300)
  t.ok((await crashes.report(ctx, { sessionId: 'ada-run-1', userId: a.userId, message: 'Ada crash' })).statusCode < 300)

  // ---- player B: some of the same, which A's export must not show ---------------------------
  const b = await createUser(ctx, { username: 'Bob' })
  await call({ method: 'POST', url: '/leaderboard/submit', payload: { userId: b.userId, score: 99 } })
  await call({ method: 'POST', url: '/cloud-save/save', payload: { userId: b.userId, saveData: 'BOB-SAVE-MARKER' } })
  await call({
    method: 'POST',
    url: '/user-feedback/submit',
    payload: { userId: b.userId, title: 'Bob feedback', message: 'BOB-FEEDBACK-MARKER' },
  })
  await call({
    method: 'POST',
    url: '/user-logs/create',
    payload: { userId: b.userId, message: 'BOB-LOG-MARKER', type: 'WARN' },
  })
  await crashes.report(ctx, { sessionId: 'bob-run', userId: b.userId, message: 'BOB-CRASH-MARKER' })
  t.equal((await redeemCode(ctx, b, 'WELCOME1')).json().success, true)

  // ---- the export ---------------------------------------------------------------------------
  const res = await admin({ method: 'GET', url: `/users/${a.userId}/export` })
  t.equal(res.statusCode, 200, 'the export answers 200')
  t.match(res.headers['content-disposition'], `user-${a.userId}.json`)
  const doc = res.json()
  const text = res.body

  t.equal(doc.account.userId, a.userId)
  t.equal(doc.account.username, 'Ada')
  t.equal(doc.account.email, a.email)
  t.equal(doc.account.hasPassword, true)
  t.equal(doc.sessions.length, 1, 'the sign-up session')
  t.equal(doc.sessions[0].revokedAt, null)
  t.same(doc.profile.badges, ['badge-star'])
  t.equal(doc.profile.avatarId, 'av-fox')
  t.same(doc.profile.customData, { title: 'Explorer' })
  t.same(
    doc.unlocks.map((u: { cosmeticId: string }) => u.cosmeticId),
    ['frame-gold'],
  )
  t.same(
    doc.leaderboardEntries.map((e: { leaderboardKey: string; score: number }) => [e.leaderboardKey, e.score]),
    [
      ['default', 4321],
      ['weekly', 77],
    ],
  )
  t.same(doc.leaderboardEntries[1].metadata, { map: 'dunes' })
  t.same(doc.leaderboardBans, [
    { leaderboardKey: 'pvp', reason: 'smurfing', bannedAt: doc.leaderboardBans[0].bannedAt },
  ])
  t.equal(doc.cloudSave.encoding, 'base64', 'a binary save in base64')
  t.same(Buffer.from(doc.cloudSave.data, 'base64'), binary, 'byte for byte')
  t.same(
    doc.values.map((v: { key: string; balance: number }) => [v.key, v.balance]),
    [['gems', 50]],
  )
  t.equal(doc.valueHistory[0].reason, 'support refund')
  t.equal(doc.valueHistory[0].amount, 50)
  t.same(
    doc.runs.map((r: { runId: string }) => r.runId),
    [started.runId],
  )
  t.same(
    doc.giftCodeRedemptions.map((r: { code: string; giftData: string }) => [r.code, r.giftData]),
    [['WELCOME1', 'starter-pack']],
  )
  const prize = doc.emails.find((e: { template: string }) => e.template === 'prize')
  t.equal(prize.subject, 'Hi Ada')
  t.equal(prize.status, 'pending')
  t.notOk(text.includes('golden hat'), 'no e-mail body: the admin API never shows one')
  const verify = doc.emails.find((e: { account: boolean }) => e.account)
  t.ok(verify, 'the verification e-mail is listed')
  t.same(
    doc.feedback.map((f: { title: string }) => f.title),
    ['Ada feedback'],
  )
  t.same(
    doc.logs.map((l: { message: string }) => l.message),
    ['Ada reached level 9'],
  )
  t.same(
    doc.crashSessions.map((s: { sessionId: string }) => s.sessionId),
    ['ada-run-1'],
  )
  t.same(
    doc.crashReports.map((r: { message: string }) => r.message),
    ['Ada crash'],
  )
  t.equal(doc.crashReports[0].breadcrumbs.length, 2)

  // Nothing of B.
  for (const marker of [
    b.userId,
    'Bob',
    'BOB-SAVE-MARKER',
    'BOB-FEEDBACK-MARKER',
    'BOB-LOG-MARKER',
    'BOB-CRASH-MARKER',
  ]) {
    t.notOk(text.includes(marker), `nothing of the other player: ${marker}`)
  }
  // No secret of A.
  const row = await ctx.app.db.selectFrom('users').selectAll().where('id', '=', a.userId).executeTakeFirstOrThrow()
  const sessionRows = await ctx.app.db.selectFrom('sessions').selectAll().where('user_id', '=', a.userId).execute()
  const runRow = await ctx.app.db
    .selectFrom('validated_runs')
    .selectAll()
    .where('id', '=', started.runId)
    .executeTakeFirstOrThrow()
  const secrets = [
    row.password_hash!,
    a.password,
    a.accessToken,
    hashToken(a.accessToken),
    ...sessionRows.map((s) => s.access_hash),
    runRow.ticket_hash,
    started.ticket,
  ]
  for (const secret of secrets) t.notOk(text.includes(secret), 'no secret in the export')
  const tokens = await ctx.app.db
    .selectFrom('account_tokens')
    .select('token_hash')
    .where('user_id', '=', a.userId)
    .execute()
  for (const token of tokens) t.notOk(text.includes(token.token_hash), 'no account-token digest')

  // B's own export: B's pieces, and the anonymous token is not in it either.
  const bDoc = await admin({ method: 'GET', url: `/users/${b.userId}/export` })
  t.equal(bDoc.statusCode, 200)
  t.equal(bDoc.json().account.hasAnonymousToken, true)
  t.equal(bDoc.json().cloudSave.encoding, 'utf8')
  t.equal(bDoc.json().cloudSave.data, 'BOB-SAVE-MARKER')
  t.equal(bDoc.json().profile, null, 'never set')
  t.notOk(bDoc.body.includes(b.anonymousToken))
  t.notOk(bDoc.body.includes(hashToken(b.anonymousToken)))
  t.notOk(bDoc.body.includes(a.userId))

  // Errors.
  assertError(
    t,
    await admin({ method: 'GET', url: '/users/00000000-0000-4000-8000-000000000000/export' }),
    404,
    'USER_NOT_FOUND',
  )
  assertError(t, await admin({ method: 'GET', url: '/users/not-a-uuid/export' }), 400, 'VALIDATION_ERROR')
  const noKey = await ctx.app.inject({ method: 'GET', url: `/api/v1/admin/users/${a.userId}/export` })
  t.equal(noKey.statusCode, 401, 'the admin key is required')

  // Deleting the user leaves nothing to export.
  t.equal((await admin({ method: 'DELETE', url: `/users/${a.userId}` })).statusCode, 200)
  assertError(t, await admin({ method: 'GET', url: `/users/${a.userId}/export` }), 404, 'USER_NOT_FOUND')
})
