import t from 'tap'
import { inTransaction } from '../../../db/transaction.js'
import type { Db } from '../../../db/types.js'
import { AddressPolicy } from '../../../features/webhooks/address.js'
import type { Sender, SendResult } from '../../../features/webhooks/sender.js'
import { createWebhook, queueTest } from '../../../features/webhooks/service.js'
import { SendSlots } from '../../../features/webhooks/slots.js'
import { WebhookWorker } from '../../../features/webhooks/worker.js'
import { eachDialect } from '../../helpers/app.js'
import { addGame } from '../../helpers/second-game.js'
import { startReceiver } from '../../helpers/receiver.js'
import { hookApp } from '../../helpers/webhooks.js'

/**
 * Each game's deliveries are sent from its own outbox by its own worker; an event a game raises
 * wakes that game's idle worker at once; a game with a long backlog to a receiver that never answers
 * does not hold another game's delivery: it takes at most its own share of the process's send slots,
 * and a game that finds none free is next in line for the first that comes free.
 */

const policy = new AddressPolicy(true)
const hook = (db: Db, url: string, events = ['webhook.test'], now = Date.now()) =>
  createWebhook(db, policy, { url, events }, now)
const deliveriesIn = (db: Db) => db.selectFrom('webhook_deliveries').select(['id', 'status']).execute()

eachDialect(t, async (t, dialect) => {
  t.test("a second game's deliveries are sent by its worker, from its outbox", async (t) => {
    const ctx = await hookApp(t, dialect)
    const { game: second } = await addGame(ctx, 'second')
    const receiver = await startReceiver(t)
    const endpoint = await hook(second.db, receiver.url, ['webhook.test'], ctx.clock.now())
    const queued = await queueTest(second.db, endpoint.id, ctx.clock.now())
    const worker = ctx.app.webhookWorkers.of(second)
    t.not(worker, ctx.app.webhookWorker, 'a worker of its own')
    t.ok(worker.running, 'started when the game was added')
    t.equal((await ctx.app.webhookWorker.runOnce()).claimed, 0, "the default game's worker sees none of it")
    t.equal((await worker.runOnce()).claimed, 1)
    t.equal(receiver.received.length, 1)
    t.equal(receiver.received[0]!.headers['webhook-id'], queued.deliveryId)
    t.same(await deliveriesIn(second.db), [{ id: queued.deliveryId, status: 'delivered' }])
    t.same(await deliveriesIn(ctx.app.db), [], 'nothing in the default game’s outbox')
  })

  t.test("an event a game raises wakes that game's idle worker at once", async (t) => {
    const ctx = await hookApp(t, dialect, { WEBHOOK_POLL_INTERVAL_MS: '100' })
    const { game: second } = await addGame(ctx, 'second')
    const receiver = await startReceiver(t)
    await hook(second.db, receiver.url, ['email.failed'], ctx.clock.now())
    // Idle for 4 s: its polls came at 0.1, 0.2, 0.3, 0.5, 0.9, 1.7 and 3.3 s; the next is at 6.5 s.
    await new Promise((resolve) => setTimeout(resolve, 4000))
    const raised = performance.now()
    await inTransaction(second.db, (trx) =>
      ctx.app.events.raise(trx, 'email.failed', {
        emailId: 'e',
        recipient: 'a@example.org',
        subject: 's',
        reason: 'r',
        attempts: 1,
      }),
    )
    await receiver.waitFor(1, 10_000)
    const waited = performance.now() - raised
    t.ok(waited < 1500, `delivered ${Math.round(waited)} ms after the commit, not at the next idle poll`)
    t.equal(JSON.parse(receiver.received[0]!.body).type, 'email.failed')
  })

  t.test("a game's backlog to a receiver that never answers does not hold another game's delivery", async (t) => {
    const ctx = await hookApp(t, dialect)
    const { game: second } = await addGame(ctx, 'second')
    const slow = await startReceiver(t)
    const fast = await startReceiver(t)
    const now = ctx.clock.now()
    // 200 deliveries in the default game, over 10 endpoints of a receiver that never answers (cut at 5 s).
    for (let e = 0; e < 10; e++) {
      const endpoint = await hook(ctx.app.db, slow.url, ['webhook.test'], now)
      for (let i = 0; i < 20; i++) await queueTest(ctx.app.db, endpoint.id, now)
    }
    slow.answers.push(...Array.from({ length: 200 }, () => 'hang' as const))
    const endpoint = await hook(second.db, fast.url, ['webhook.test'], now)
    await queueTest(second.db, endpoint.id, now)

    const busy = ctx.app.webhookWorker
    const started = performance.now()
    t.equal((await busy.poll()).claimed, busy.settings.concurrency, 'the busy game takes its own share of the slots')
    await slow.waitFor(busy.settings.concurrency)
    t.equal((await ctx.app.webhookWorkers.of(second).poll()).claimed, 1, 'the other game still finds one free')
    await fast.waitFor(1, 2000)
    t.ok(performance.now() - started < 2000, 'sent while the busy game’s sends hang')
    await ctx.app.webhookWorker.stop()
  })

  t.test(
    'when every slot is taken, a freed slot goes to the game waiting in line, not back to the busy one',
    async (t) => {
      const ctx = await hookApp(t, dialect)
      const { game: second } = await addGame(ctx, 'second')
      const now = ctx.clock.now()
      const busyHook = await hook(ctx.app.db, 'http://127.0.0.1:9/busy', ['webhook.test'], now)
      for (let i = 0; i < 6; i++) await queueTest(ctx.app.db, busyHook.id, now)
      const otherHook = await hook(second.db, 'http://127.0.0.1:9/other', ['webhook.test'], now)
      await queueTest(second.db, otherHook.id, now)

      // Two slots in all; the busy game may use both. Its sends wait until the test lets one end.
      const order: string[] = []
      const held: Array<() => void> = []
      // Once the test ends, sends end at once (a busy worker's further polls start more).
      let ending = false
      const sender: Sender = {
        send: (url) => {
          order.push(new URL(url).pathname)
          if (url.includes('other') || ending) return Promise.resolve(ok)
          return new Promise<SendResult>((resolve) => held.push(() => resolve(ok)))
        },
      }
      const slots = new SendSlots(2)
      const settings = { ...ctx.app.webhookWorker.settings, concurrency: 2, perEndpoint: 2, pollIntervalMs: 3_600_000 }
      const log = ctx.app.log
      const busy = new WebhookWorker(ctx.app.db, ctx.clock, log, sender, settings, undefined, slots, 'default')
      const other = new WebhookWorker(second.db, ctx.clock, log, sender, settings, undefined, slots, 'second')
      await ctx.app.webhookWorker.stop()
      await ctx.app.webhookWorkers.of(second).stop()
      busy.start()
      other.start()
      t.teardown(async () => {
        ending = true
        for (const release of held) release()
        await Promise.all([busy.stop(), other.stop()])
      })

      t.equal((await busy.poll()).claimed, 2, 'the busy game took both slots')
      t.equal((await other.poll()).claimed, 0, 'none left: the other game waits in line')
      held.shift()!()
      // The freed slot is kept for the other game, whose worker is woken to take it; the busy one's next poll gets none.
      for (let i = 0; i < 100 && order.length < 3; i++) await new Promise((resolve) => setTimeout(resolve, 20))
      t.same(
        order.slice(0, 3),
        ['/busy', '/busy', '/other'],
        "the other game's delivery went before the busy game's third",
      )
    },
  )
})

const ok: SendResult = { statusCode: 200, durationMs: 1, error: null }
