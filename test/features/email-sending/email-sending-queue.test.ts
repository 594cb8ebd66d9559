import { createServer } from 'node:net'
import t from 'tap'
import { assertError, buildTestApp, eachDialect } from '../../helpers/app.js'
import {
  HOUR,
  ISO_MS,
  SEND,
  createEmailUser,
  emailApp,
  emailRow,
  sameDatabase,
  setUpEmailSending,
} from '../../fixtures/email.js'

/** A port nothing listens on: connections to it are refused. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const port = (server.address() as { port: number }).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

eachDialect(t, async (t, dialect) => {
  const { smtp, ctx, worker, player, mailsWith } = await setUpEmailSending(t, dialect)
  const { call, app, clock } = ctx

  t.test(
    'a scheduled e-mail waits for its time; past means now; 9 fractional digits and offsets are fine',
    async (t) => {
      const user = await player()
      const at = clock.now() + HOUR
      const res = await call({
        method: 'POST',
        url: SEND,
        payload: {
          userId: user.userId,
          templateSlug: 'reward',
          language: 'en',
          variables: { prize: 'later' },
          scheduledAt: new Date(at).toISOString().replace('.000Z', 'Z'),
        },
      })
      t.equal(res.statusCode, 201)
      t.equal(res.json().scheduledAt, new Date(at).toISOString())
      t.same(await worker.runOnce(), { released: 0, claimed: 0, sent: 0, retried: 0, failed: 0 }, 'not before its time')
      clock.advance(HOUR - 1)
      t.equal((await worker.runOnce()).sent, 0)
      clock.advance(1)
      t.equal((await worker.runOnce()).sent, 1, 'sent once due')
      t.equal((await call({ method: 'GET', url: `/email-sending/${res.json().id}` })).json().status, 'sent')

      const past = await call({
        method: 'POST',
        url: SEND,
        payload: {
          userId: user.userId,
          templateSlug: 'reward',
          language: 'en',
          variables: { prize: 'p' },
          scheduledAt: '2020-01-01T00:00:00.123456789+02:00',
        },
      })
      t.equal(past.json().scheduledAt, new Date(clock.now()).toISOString(), 'past means now')
      const offset = await call({
        method: 'POST',
        url: SEND,
        payload: {
          userId: user.userId,
          templateSlug: 'reward',
          language: 'en',
          variables: { prize: 'p' },
          scheduledAt: '2026-11-23T12:00:00.5+01:00',
        },
      })
      t.equal(offset.json().scheduledAt, '2026-11-23T11:00:00.500Z')
      await call({ method: 'DELETE', url: `/email-sending/${offset.json().id}` })
      await worker.runOnce()
    },
  )

  t.test('cancel works only while pending; a race with the worker has one winner', async (t) => {
    const user = await player()
    const send = async () =>
      (
        await call({
          method: 'POST',
          url: SEND,
          payload: {
            userId: user.userId,
            templateSlug: 'reward',
            language: 'en',
            variables: { prize: 'cancel-me' },
            scheduledAt: new Date(clock.now() + HOUR).toISOString(),
          },
        })
      ).json().id as string
    const id = await send()
    const cancelled = await call({
      method: 'DELETE',
      url: `/email-sending/${id}`,
      headers: { 'content-type': 'application/octet-stream' },
    })
    t.equal(cancelled.statusCode, 200)
    t.same(cancelled.json(), { id, status: 'cancelled', message: 'Email cancelled' })
    assertError(t, await call({ method: 'DELETE', url: `/email-sending/${id}` }), 409, 'CONFLICT')
    clock.advance(HOUR)
    await worker.runOnce()
    t.equal(smtp.mails.filter((m) => m.text.includes('cancel-me')).length, 0, 'a cancelled e-mail is never sent')
    const status = (await call({ method: 'GET', url: `/email-sending/${id}` })).json()
    t.match(status, { status: 'cancelled', attempts: 0 })
    t.match(status.processedAt, ISO_MS)

    const sentId = (
      await call({
        method: 'POST',
        url: SEND,
        payload: { userId: user.userId, templateSlug: 'reward', language: 'en', variables: { prize: 'p' } },
      })
    ).json().id
    await worker.runOnce()
    assertError(t, await call({ method: 'DELETE', url: `/email-sending/${sentId}` }), 409, 'CONFLICT')

    smtp.delayMs = 20
    t.teardown(() => {
      smtp.delayMs = 0
    })
    for (let round = 0; round < 3; round++) {
      const raceId = (
        await call({
          method: 'POST',
          url: SEND,
          payload: {
            userId: user.userId,
            templateSlug: 'reward',
            language: 'en',
            variables: { prize: `race-${round}` },
          },
        })
      ).json().id
      const before = smtp.mails.length
      const [cancel, pass] = await Promise.all([
        call({ method: 'DELETE', url: `/email-sending/${raceId}` }),
        worker.runOnce(),
      ])
      const final = (await emailRow(ctx, raceId)).status
      if (cancel.statusCode === 200) {
        t.equal(final, 'cancelled')
        t.equal(pass.sent, 0)
        t.equal(smtp.mails.length, before, 'not sent')
      } else {
        t.equal(cancel.statusCode, 409)
        t.equal(final, 'sent')
        t.equal(smtp.mails.length, before + 1)
      }
    }
  })

  t.test(
    'a transient failure (451) is retried with backoff; a permanent one (550) fails with the reason',
    async (t) => {
      const user = await player()
      const send = async (prize: string) =>
        (
          await call({
            method: 'POST',
            url: SEND,
            payload: { userId: user.userId, templateSlug: 'reward', language: 'en', variables: { prize } },
          })
        ).json().id as string
      const id = await send('retry')
      smtp.refuseNext(1, 451, 'Greylisted, try again')
      t.same(await worker.runOnce(), { released: 0, claimed: 1, sent: 0, retried: 1, failed: 0 })
      let status = (await call({ method: 'GET', url: `/email-sending/${id}` })).json()
      t.match(status, { status: 'pending', attempts: 1, processedAt: null })
      t.match(status.errorReason, /451.*Greylisted/)
      t.equal(worker.retryDelayMs(1), 30_000)
      t.equal(worker.retryDelayMs(2), 60_000)
      clock.advance(worker.retryDelayMs(1) - 1)
      t.equal((await worker.runOnce()).claimed, 0, 'not before the backoff')
      clock.advance(1)
      t.equal((await worker.runOnce()).sent, 1, 'the server recovered: delivered')
      status = (await call({ method: 'GET', url: `/email-sending/${id}` })).json()
      t.match(status, { status: 'sent', attempts: 2, errorReason: null })

      const doomed = await send('permanent')
      smtp.refuseNext(1, 550, 'No such mailbox')
      t.equal((await worker.runOnce()).failed, 1)
      status = (await call({ method: 'GET', url: `/email-sending/${doomed}` })).json()
      t.match(status, { status: 'failed', attempts: 1 })
      t.match(status.errorReason, /550.*No such mailbox/)
      t.match(status.processedAt, ISO_MS)

      const stubborn = await send('stubborn')
      smtp.refuseNext(5, 452, 'Mailbox full, try later')
      for (let attempt = 1; attempt <= 5; attempt++) {
        t.equal((await worker.runOnce()).claimed, 1, `attempt ${attempt}`)
        clock.advance(worker.retryDelayMs(attempt))
      }
      t.match(
        await emailRow(ctx, stubborn),
        { status: 'failed', attempts: 5, error_reason: /452/ },
        'gives up after EMAIL_MAX_ATTEMPTS',
      )
      t.equal((await worker.runOnce()).claimed, 0)
    },
  )

  t.test('connection errors are transient; a claim that outlives its timeout is released', async (t) => {
    const port = await closedPort()
    const down = await emailApp(t, dialect, `smtp://127.0.0.1:${port}`, {
      dbEnv: sameDatabase(ctx),
      clock,
      env: { EMAIL_MAX_ATTEMPTS: '2' },
    })
    const user = await player()
    const id = (
      await call({
        method: 'POST',
        url: SEND,
        payload: { userId: user.userId, templateSlug: 'reward', language: 'en', variables: { prize: 'p' } },
      })
    ).json().id
    t.equal((await down.app.emailWorker.runOnce()).retried, 1)
    t.match(await emailRow(ctx, id), { status: 'pending', attempts: 1, error_reason: /ECONNECTION|ECONNREFUSED/ })
    clock.advance(down.app.emailWorker.retryDelayMs(1))
    t.equal((await down.app.emailWorker.runOnce()).failed, 1)
    t.match(await emailRow(ctx, id), { status: 'failed', attempts: 2 })

    // A process died holding a claim: after the timeout another pass takes it over.
    const orphan = (
      await call({
        method: 'POST',
        url: SEND,
        payload: { userId: user.userId, templateSlug: 'reward', language: 'en', variables: { prize: 'orphan' } },
      })
    ).json().id
    await app.db
      .updateTable('emails')
      .set({ status: 'processing', claim_token: 'dead-instance', claimed_at: clock.now(), attempts: 1 })
      .where('id', '=', orphan)
      .execute()
    clock.advance(9 * 60_000)
    t.equal((await worker.runOnce()).released, 0, 'a recent claim is left alone')
    clock.advance(60_000)
    t.match(await worker.runOnce(), { released: 1, sent: 1 })
    t.match(await emailRow(ctx, orphan), { status: 'sent', attempts: 2, claim_token: null })
    t.equal(mailsWith('Hi Player').filter((m) => m.text.includes('orphan')).length, 1)
  })

  t.test('admin queue: filter by status and user, pages, one e-mail', async (t) => {
    const user = await player()
    for (let i = 0; i < 3; i++)
      await call({
        method: 'POST',
        url: SEND,
        payload: { userId: user.userId, templateSlug: 'reward', language: 'en', variables: { prize: `a${i}` } },
      })
    await worker.runOnce()
    const page1 = await ctx.admin({ method: 'GET', url: `/emails?status=sent&userId=${user.userId}&limit=2` })
    t.equal(page1.statusCode, 200)
    const body = page1.json()
    t.equal(body.items.length, 2)
    t.match(body.items[0], { status: 'sent', userId: user.userId, attempts: 1 })
    t.equal(body.items[0].recipient.toLowerCase(), user.email.toLowerCase())
    const page2 = (
      await ctx.admin({
        method: 'GET',
        url: `/emails?status=sent&userId=${user.userId}&limit=2&cursor=${body.nextCursor}`,
      })
    ).json()
    t.equal(page2.items.length, 2, 'three game mails and the verification mail')
    t.equal(page2.nextCursor, null)
    const all = [...body.items, ...page2.items]
    t.equal(new Set(all.map((i: { id: string }) => i.id)).size, 4, 'pages do not overlap')
    t.same(all.map((i: { templateSlug: string }) => i.templateSlug).sort(), [
      'email-verification',
      'reward',
      'reward',
      'reward',
    ])
    t.equal(all.filter((i: { account: boolean }) => i.account).length, 1)
    t.equal((await ctx.admin({ method: 'GET', url: `/emails/${body.items[0].id}` })).json().id, body.items[0].id)
    assertError(t, await ctx.admin({ method: 'GET', url: '/emails?status=lost' }), 400, 'VALIDATION_ERROR')
    assertError(
      t,
      await ctx.admin({ method: 'GET', url: '/emails/00000000-0000-4000-8000-000000000000' }),
      404,
      'EMAIL_NOT_FOUND',
    )
    assertError(t, await call({ method: 'GET', url: '/emails' }), 404, 'NOT_FOUND')
    t.equal(
      (await ctx.admin({ method: 'GET', url: '/emails?status=processing' })).json().items.length,
      0,
      'nothing stuck in processing',
    )
  })

  t.test('two instances on one database deliver 50 queued e-mails exactly once each', async (t) => {
    const other = await emailApp(t, dialect, smtp.url, {
      dbEnv: sameDatabase(ctx),
      clock,
      env: { EMAIL_MAX_PER_USER_PER_HOUR: '100' },
    })
    const users = await Promise.all(Array.from({ length: 5 }, () => createEmailUser(ctx)))
    await worker.runOnce()
    const before = smtp.mails.length
    for (const user of users) {
      const sends = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          other.call({
            method: 'POST',
            url: SEND,
            payload: {
              userId: user.userId,
              templateSlug: 'reward',
              language: 'en',
              variables: { name: 'Bulk', prize: `${user.userId}#${i}` },
            },
          }),
        ),
      )
      t.same([...new Set(sends.map((r) => r.statusCode))], [201])
    }
    smtp.delayMs = 2
    t.teardown(() => {
      smtp.delayMs = 0
    })
    const drain = async (w: typeof worker) => {
      for (let i = 0; i < 20; i++) if ((await w.runOnce()).claimed === 0) return
    }
    await Promise.all([drain(worker), drain(other.app.emailWorker), drain(worker), drain(other.app.emailWorker)])
    const bulk = smtp.mails.slice(before).filter((m) => m.subject === 'Hi Bulk')
    t.equal(bulk.length, 50, '50 deliveries at the SMTP server')
    t.equal(new Set(bulk.map((m) => m.text)).size, 50, 'each e-mail once')
    const rows = await app.db
      .selectFrom('emails')
      .select(['status', 'attempts'])
      .where('subject', '=', 'Hi Bulk')
      .execute()
    t.equal(rows.length, 50)
    t.ok(
      rows.every((r) => r.status === 'sent' && r.attempts === 1),
      'all sent at the first attempt',
    )
  })

  t.test('the background worker starts with the server and stops with it, finishing its batch', async (t) => {
    const live = await buildTestApp(t, dialect, {
      dbEnv: sameDatabase(ctx),
      clock,
      env: { SMTP_URL: smtp.url, EMAIL_POLL_INTERVAL_MS: '100' },
    })
    const user = await player()
    const before = smtp.mails.length
    const res = await live.call({
      method: 'POST',
      url: SEND,
      payload: { userId: user.userId, templateSlug: 'reward', language: 'en', variables: { name: 'Live', prize: 'p' } },
    })
    t.equal(res.statusCode, 201)
    await smtp.waitFor(before + 1, 5000)
    t.equal(smtp.mails[before]!.subject, 'Hi Live', 'delivered by the polling loop, no runOnce')

    smtp.delayMs = 300
    t.teardown(() => {
      smtp.delayMs = 0
    })
    const id = (
      await live.call({
        method: 'POST',
        url: SEND,
        payload: {
          userId: user.userId,
          templateSlug: 'reward',
          language: 'en',
          variables: { name: 'Closing', prize: 'p' },
        },
      })
    ).json().id
    const pass = live.app.emailWorker.runOnce()
    await new Promise((resolve) => setTimeout(resolve, 50))
    await live.app.close()
    t.match(await pass, { sent: 1 })
    t.equal((await emailRow(ctx, id)).status, 'sent', 'the pass in hand finished before the close')
  })
})
