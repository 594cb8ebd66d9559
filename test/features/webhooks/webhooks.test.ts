import t from 'tap'
import { assertError, eachDialect } from '../../helpers/app.js'
import { startReceiver } from '../../helpers/receiver.js'
import { startSmtp } from '../../helpers/smtp.js'
import { createHook, drain, hookApp, SECRET_FORM, verified } from '../../helpers/webhooks.js'
import { createBoard, submit } from '../../fixtures/leaderboard.js'
import { report } from '../../fixtures/crash-reporting.js'
import { createUser } from '../../fixtures/users.js'
import { createGiftCode, redeemCode } from '../../fixtures/gift-codes.js'
import { putRules, run, submitRun } from '../../fixtures/validated-actions.js'
import { createEmailUser, putTemplate } from '../../fixtures/email.js'
import { inTransaction } from '../../../db/transaction.js'

eachDialect(t, async (t, dialect) => {
  const ctx = await hookApp(t, dialect)
  const { app, admin, call, clock } = ctx
  const worker = app.webhookWorker

  t.test('endpoints: create shows the secret once, reads mask it, strict bodies, owner only', async (t) => {
    const receiver = await startReceiver(t)
    const created = await admin({
      method: 'POST',
      url: '/webhooks',
      payload: { url: receiver.url, events: ['webhook.test'], description: 'ops' },
    })
    t.equal(created.statusCode, 201)
    const body = created.json()
    t.match(body, {
      url: `${new URL(receiver.url).origin}/****`,
      events: ['webhook.test'],
      format: 'standard',
      enabled: true,
      description: 'ops',
    })
    t.match(body.secret, SECRET_FORM)
    t.equal(Buffer.from(body.secret.slice(6), 'base64').length, 24)
    const read = (await admin({ method: 'GET', url: `/webhooks/${body.id}` })).json()
    t.not(read.secret, body.secret)
    t.equal(read.secret, `whsec_…${body.secret.slice(-4)}`)
    t.notOk(JSON.stringify((await admin({ method: 'GET', url: '/webhooks' })).json()).includes(body.secret))

    assertError(
      t,
      await admin({ method: 'POST', url: '/webhooks', payload: { url: receiver.url, events: ['x'] } }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(
      t,
      await admin({
        method: 'POST',
        url: '/webhooks',
        payload: { url: receiver.url, events: ['webhook.test'], extra: 1 },
      }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(
      t,
      await admin({
        method: 'POST',
        url: '/webhooks',
        payload: { url: 'ftp://example.com/', events: ['webhook.test'] },
      }),
      400,
      'VALIDATION_ERROR',
    )

    const updated = await admin({
      method: 'PUT',
      url: `/webhooks/${body.id}`,
      // A chat tool's webhook URL carries its token in the path: the audit log keeps the origin only.
      payload: { enabled: false, format: 'slack', url: new URL('/hooks/T0/B0/tok3n-in-the-path', receiver.url).href },
    })
    t.match(updated.json(), { enabled: false, format: 'slack' })
    const rotated = (await admin({ method: 'POST', url: `/webhooks/${body.id}/rotate-secret` })).json()
    t.match(rotated.secret, SECRET_FORM)
    t.not(rotated.secret, body.secret)
    t.same((await admin({ method: 'DELETE', url: `/webhooks/${body.id}` })).json(), { id: body.id, deleted: true })
    assertError(t, await admin({ method: 'GET', url: `/webhooks/${body.id}` }), 404, 'WEBHOOK_NOT_FOUND')

    // The audit log has every write, and no secret (neither the first nor the rotated one).
    const audit = await app.db.selectFrom('audit_log').selectAll().where('action', 'like', '%webhooks%').execute()
    t.ok(audit.length >= 4, 'create, update, rotate and delete are audited')
    const text = JSON.stringify(audit)
    t.notOk(text.includes(body.secret.slice(6)), 'the secret is in no audit entry')
    t.notOk(text.includes(rotated.secret.slice(6)), 'the rotated secret is in no audit entry')
    t.notOk(text.includes('tok3n-in-the-path'), "a URL's path is in no audit entry")
    t.ok(text.includes(new URL(receiver.url).host), "the URL's host is")
    t.notOk(ctx.logs.join('').includes(body.secret.slice(6)), 'the secret is in no log line')
    t.notOk(ctx.logs.join('').includes(rotated.secret.slice(6)), 'the rotated secret is in no log line')
  })

  t.test('every event type, raised by a real request, arrives once, signed, with its data', async (t) => {
    const receiver = await startReceiver(t)
    const smtp = await startSmtp(t)
    const mailCtx = await hookApp(
      t,
      dialect,
      { SMTP_URL: smtp.url },
      Object.fromEntries(Object.entries(ctx.env).filter(([k]) => k.startsWith('DB_'))),
    )
    const all = [
      'leaderboard.new_leader',
      'crash.group_created',
      'crash.group_regressed',
      'feedback.submitted',
      'run.flagged',
      'gift_code.exhausted',
      'player.banned',
      'email.failed',
      'webhook.test',
    ]
    const hook = await createHook(ctx, { url: receiver.url, events: all })

    const alice = await createUser(ctx, { username: 'Alice' })
    const bob = await createUser(ctx, { username: 'Bob' })
    await createBoard(ctx, 'hooks-weekly')
    t.equal((await submit(ctx, 'hooks-weekly', alice.userId, 100)).statusCode, 200)
    t.equal((await submit(ctx, 'hooks-weekly', bob.userId, 50)).statusCode, 200)
    t.equal(
      (await submit(ctx, 'hooks-weekly', alice.userId, 120)).statusCode,
      200,
      'the leader improving: no new leader',
    )
    t.equal((await submit(ctx, 'hooks-weekly', bob.userId, 500)).statusCode, 200)

    const crash = (
      await report(ctx, { fingerprint: 'hooks-fp', appVersion: '1.0.0', message: 'NullReference in Shop' })
    ).json()
    await report(ctx, { fingerprint: 'hooks-fp', appVersion: '1.0.0', message: 'NullReference in Shop' })
    t.equal(
      (
        await admin({
          method: 'PATCH',
          url: `/crash-reports/groups/${crash.groupId}`,
          payload: { status: 'RESOLVED', resolvedInVersion: '1.0.0' },
        })
      ).statusCode,
      200,
    )
    await report(ctx, { fingerprint: 'hooks-fp', appVersion: '1.1.0', message: 'NullReference in Shop' })
    await report(ctx, { fingerprint: 'hooks-fp', appVersion: '1.1.0', message: 'NullReference in Shop' })

    t.equal(
      (
        await call({
          method: 'POST',
          url: '/user-feedback/submit',
          payload: { title: 'Stuck', message: 'The door does not open' },
        })
      ).statusCode,
      200,
    )
    // A player's feedback: the name is read for the event only because an endpoint hears it.
    t.equal(
      (
        await call({
          method: 'POST',
          url: '/user-feedback/submit',
          payload: { userId: alice.userId, title: 'Shop', message: 'Prices' },
        })
      ).statusCode,
      200,
    )

    await createBoard(ctx, 'hooks-arena')
    await putRules(ctx, 'hooks-arena', { minDurationSeconds: 0, susScore: 100 })
    const started = await run(ctx, alice, 'hooks-arena')
    t.equal((await submitRun(ctx, alice, started.ticket, 5000)).statusCode, 200)

    const code = await createGiftCode(ctx, { code: 'HOOKS-ONE', maxRedemptions: 1 })
    t.equal((await redeemCode(ctx, alice, code.code)).json().success, true)
    t.equal((await redeemCode(ctx, bob, code.code)).json().success, false, 'a refused redemption raises nothing')

    t.equal(
      (await admin({ method: 'POST', url: `/users/${bob.userId}/ban`, payload: { reason: 'cheating' } })).statusCode,
      200,
    )
    t.equal(
      (await admin({ method: 'POST', url: `/users/${bob.userId}/ban`, payload: { reason: 'again' } })).statusCode,
      200,
      'a second ban is no new event',
    )

    await putTemplate(mailCtx, 'hooks-mail')
    const mailUser = await createEmailUser(mailCtx)
    smtp.refuseNext(1, 550, 'No such mailbox')
    const sent = await mailCtx.call({
      method: 'POST',
      url: '/email-sending/send',
      payload: { userId: mailUser.userId, templateSlug: 'hooks-mail', language: 'en', variables: { prize: 'a hat' } },
    })
    t.equal(sent.statusCode, 201, sent.body)
    await mailCtx.app.emailWorker.runOnce()

    t.equal((await admin({ method: 'POST', url: `/webhooks/${hook.id}/test` })).statusCode, 202)

    await drain(ctx)
    const events = verified(t, receiver, hook.secret)
    const byType = (type: string) => events.filter((e) => e.type === type)
    t.equal(events.length, 12, `twelve events: ${events.map((e) => e.type).join(', ')}`)
    t.same(
      byType('leaderboard.new_leader')
        .map((e) => [e.data.board, e.data.userId, e.data.playerName, e.data.score])
        .sort((a, b) => a[3] - b[3]),
      [
        ['hooks-weekly', alice.userId, 'Alice', 100],
        ['hooks-weekly', bob.userId, 'Bob', 500],
        ['hooks-arena', alice.userId, 'Alice', 5000],
      ],
    )
    t.match(byType('crash.group_created'), [
      { data: { groupId: crash.groupId, appVersion: '1.0.0', message: 'NullReference in Shop' } },
    ])
    t.match(byType('crash.group_regressed'), [{ data: { groupId: crash.groupId, appVersion: '1.1.0' } }])
    t.equal(byType('crash.group_regressed').length, 1)
    t.same(
      byType('feedback.submitted')
        .map((e) => [e.data.title, e.data.message, e.data.userId, e.data.playerName])
        .sort(),
      [
        ['Shop', 'Prices', alice.userId, 'Alice'],
        ['Stuck', 'The door does not open', null, null],
      ],
    )
    t.match(byType('run.flagged'), [
      { data: { runId: started.runId, userId: alice.userId, status: 'sus', reason: 'susScore', score: 5000 } },
    ])
    t.match(byType('gift_code.exhausted'), [{ data: { code: 'HOOKS-ONE', maxRedemptions: 1, userId: alice.userId } }])
    t.match(byType('player.banned'), [{ data: { userId: bob.userId, playerName: 'Bob', reason: 'cheating' } }])
    t.match(byType('email.failed'), [{ data: { recipient: mailUser.email, reason: /550/ } }])
    t.match(byType('webhook.test'), [{ data: { webhookId: hook.id } }])
    const ids = receiver.received.map((r) => r.headers['webhook-id'])
    t.equal(new Set(ids).size, ids.length, 'each delivery has its own webhook-id')
    t.equal((await worker.runOnce()).claimed, 0, 'nothing is sent twice')

    const deliveries = (await admin({ method: 'GET', url: `/webhooks/${hook.id}/deliveries?limit=100` })).json()
    t.equal(deliveries.items.length, 12)
    t.ok(
      deliveries.items.every((d: any) => d.status === 'delivered' && d.responseCode === 200 && d.history.length === 1),
    )
    await admin({ method: 'DELETE', url: `/webhooks/${hook.id}` })
  })

  t.test('a rolled-back change writes nothing to the outbox', async (t) => {
    const receiver = await startReceiver(t)
    await createHook(ctx, { url: receiver.url, events: ['player.banned'] })
    const before = await app.db.selectFrom('webhook_deliveries').select('id').execute()
    await t.rejects(
      inTransaction(app.db, async (trx) => {
        await app.events.raise(trx, 'player.banned', { userId: 'x', playerName: 'x', reason: null })
        throw new Error('the change fails after raising')
      }),
    )
    t.equal((await app.db.selectFrom('webhook_deliveries').select('id').execute()).length, before.length)
    t.equal((await worker.runOnce()).claimed, 0)
    t.equal(receiver.received.length, 0)
  })

  t.test('500 twice then 200: three attempts on the backoff schedule', async (t) => {
    const receiver = await startReceiver(t)
    const hook = await createHook(ctx, { url: receiver.url, events: ['webhook.test'] })
    receiver.answers.push(500, 500)
    const queued = (await admin({ method: 'POST', url: `/webhooks/${hook.id}/test` })).json()
    const start = clock.now()
    await worker.runOnce()
    const list = async () => (await admin({ method: 'GET', url: `/webhooks/${hook.id}/deliveries` })).json().items[0]
    let delivery = await list()
    t.match(delivery, { id: queued.deliveryId, status: 'pending', attempts: 1, responseCode: 500 })
    const wait1 = Date.parse(delivery.nextAttemptAt) - start
    t.ok(wait1 >= 48_000 && wait1 <= 72_000, `first retry 1 min ± 20 % (${wait1} ms)`)
    t.equal((await worker.runOnce()).claimed, 0, 'not before its time')
    clock.advance(wait1)
    await worker.runOnce()
    delivery = await list()
    t.match(delivery, { status: 'pending', attempts: 2, responseCode: 500 })
    const wait2 = Date.parse(delivery.nextAttemptAt) - clock.now()
    t.ok(wait2 >= 144_000 && wait2 <= 216_000, `second retry 3 min ± 20 % (${wait2} ms)`)
    clock.advance(wait2 - 1000)
    t.equal((await worker.runOnce()).claimed, 0, 'not before its time')
    clock.advance(1000)
    await worker.runOnce()
    delivery = await list()
    t.match(delivery, { status: 'delivered', attempts: 3, responseCode: 200, nextAttemptAt: null })
    t.same(
      delivery.history.map((a: any) => [a.attempt, a.outcome, a.responseCode]),
      [
        [1, 'retry', 500],
        [2, 'retry', 500],
        [3, 'delivered', 200],
      ],
    )
    t.equal(receiver.received.length, 3)
    t.equal(
      new Set(receiver.received.map((r) => r.headers['webhook-id'])).size,
      1,
      'one webhook-id across the attempts',
    )

    // retry sends a delivered one again
    t.equal(
      (await admin({ method: 'POST', url: `/webhooks/${hook.id}/deliveries/${queued.deliveryId}/retry` })).statusCode,
      202,
    )
    await worker.runOnce()
    t.equal(receiver.received.length, 4)
    await admin({ method: 'DELETE', url: `/webhooks/${hook.id}` })
  })

  t.test('410 disables the endpoint; its later events wait', async (t) => {
    const receiver = await startReceiver(t)
    const hook = await createHook(ctx, { url: receiver.url, events: ['webhook.test', 'player.banned'] })
    receiver.answers.push(410)
    await admin({ method: 'POST', url: `/webhooks/${hook.id}/test` })
    await worker.runOnce()
    const read = (await admin({ method: 'GET', url: `/webhooks/${hook.id}` })).json()
    t.match(read, { enabled: false, disabledReason: /410/ })
    const delivery = (await admin({ method: 'GET', url: `/webhooks/${hook.id}/deliveries` })).json().items[0]
    t.match(delivery, { status: 'failed', responseCode: 410, attempts: 1 })
    const user = await createUser(ctx)
    await admin({ method: 'POST', url: `/users/${user.userId}/ban`, payload: {} })
    await worker.runOnce()
    t.equal(receiver.received.length, 1, 'a disabled endpoint is sent nothing')
    await admin({ method: 'DELETE', url: `/webhooks/${hook.id}` })
  })

  t.test('a receiver that never answers is cut at 5 s; a slow one holds no other endpoint', async (t) => {
    const slow = await startReceiver(t)
    const fast = await startReceiver(t)
    const slowHook = await createHook(ctx, { url: slow.url, events: ['webhook.test'] })
    const fastHook = await createHook(ctx, { url: fast.url, events: ['webhook.test'] })
    slow.answers.push('hang')
    await admin({ method: 'POST', url: `/webhooks/${slowHook.id}/test` })
    await worker.poll()
    await slow.waitFor(1)
    await admin({ method: 'POST', url: `/webhooks/${fastHook.id}/test` })
    const started = Date.now()
    await worker.poll()
    await fast.waitFor(1, 4000)
    t.ok(Date.now() - started < 4000, 'the other endpoint is delivered while the slow one hangs')
    await worker.runOnce()
    const delivery = (await admin({ method: 'GET', url: `/webhooks/${slowHook.id}/deliveries` })).json().items[0]
    t.match(delivery, { status: 'pending', responseCode: null, error: /No answer within 5000 ms/ })
    t.ok(delivery.durationMs >= 4900 && delivery.durationMs < 9000, `cut at 5 s (${delivery.durationMs} ms)`)
    await admin({ method: 'DELETE', url: `/webhooks/${slowHook.id}` })
    await admin({ method: 'DELETE', url: `/webhooks/${fastHook.id}` })
  })

  t.test('discord and slack bodies a person reads, with a console link', async (t) => {
    const discord = await startReceiver(t)
    const slack = await startReceiver(t)
    const d = await createHook(ctx, { url: discord.url, events: ['crash.group_created'], format: 'discord' })
    const s = await createHook(ctx, { url: slack.url, events: ['crash.group_created'], format: 'slack' })
    const crash = (await report(ctx, { fingerprint: 'fmt-fp', appVersion: '2.0.1', message: 'Out of memory' })).json()
    await drain(ctx)
    const link = `http://localhost:8080/console/#/crashes/${crash.groupId}`
    const dBody = JSON.parse(discord.received[0]!.body)
    t.match(dBody.content, /New crash.*2\.0\.1.*Out of memory/)
    t.match(dBody.embeds[0], { title: 'New crash', url: link })
    t.ok(dBody.embeds[0].fields.some((f: any) => f.name === 'Version' && f.value === '2.0.1'))
    const sBody = JSON.parse(slack.received[0]!.body)
    t.same(Object.keys(sBody), ['text'])
    t.match(sBody.text, /2\.0\.1/)
    t.ok(sBody.text.includes(link))
    await admin({ method: 'DELETE', url: `/webhooks/${d.id}` })
    await admin({ method: 'DELETE', url: `/webhooks/${s.id}` })
  })

  t.test('two workers on one database deliver each event exactly once', async (t) => {
    const receiver = await startReceiver(t)
    const hook = await createHook(ctx, { url: receiver.url, events: ['webhook.test'] })
    const other = await hookApp(
      t,
      dialect,
      {},
      Object.fromEntries(Object.entries(ctx.env).filter(([k]) => k.startsWith('DB_'))),
    )
    for (let i = 0; i < 12; i++) await admin({ method: 'POST', url: `/webhooks/${hook.id}/test` })
    for (let round = 0; round < 10; round++) await Promise.all([worker.runOnce(), other.app.webhookWorker.runOnce()])
    await drain(ctx)
    t.equal(receiver.received.length, 12)
    t.equal(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size, 12)
    await admin({ method: 'DELETE', url: `/webhooks/${hook.id}` })
  })

  t.test('metrics: deliveries by event, endpoint and outcome, and the outbox backlog', async (t) => {
    const text = (await app.inject({ method: 'GET', url: '/metrics' })).body
    t.match(text, /outpost_webhook_deliveries_total\{outcome="delivered",game="default"\} [1-9]/)
    t.match(text, /outpost_webhook_deliveries_total\{outcome="retry",game="default"\} [1-9]/)
    t.match(text, /outpost_webhook_deliveries_by_event_total\{event="webhook.test",game="default"\} [1-9]/)
    t.match(
      text,
      /outpost_webhook_deliveries_by_endpoint_total\{endpoint="[0-9a-f-]{36}:delivered",game="default"\} [1-9]/,
    )
    t.match(text, /outpost_webhook_outbox\{status="pending"\} \d+/)
  })
})
