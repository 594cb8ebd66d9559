import t from 'tap'
import { eachDialect, freshDatabase } from '../../helpers/app.js'
import { startReceiver } from '../../helpers/receiver.js'
import { adminApi, startServer } from '../../helpers/server-process.js'

/**
 * The delivery worker in real server processes (node dist/server.js) on one database: an event
 * committed just before a kill -9 is delivered by the restarted server, and two servers polling one
 * outbox deliver each event exactly once.
 */
eachDialect(t, async (t, dialect) => {
  t.test('an event committed before a kill -9 is delivered by the restarted server', async (t) => {
    const dbEnv = await freshDatabase(t, dialect)
    const receiver = await startReceiver(t)
    // The first server never polls (its first pass would come after an hour): it dies between commit and send.
    const first = await startServer(t, dbEnv, { WEBHOOK_POLL_INTERVAL_MS: '3600000' })
    const hook = await adminApi(first.base, 'POST', '/webhooks', { url: receiver.url, events: ['webhook.test'] })
    t.equal(hook.status, 201)
    const queued = await adminApi(first.base, 'POST', `/webhooks/${hook.body.id}/test`)
    t.equal(queued.status, 202)
    const exited = new Promise((resolve) => first.child.once('exit', resolve))
    first.child.kill('SIGKILL')
    await exited
    t.equal(receiver.received.length, 0, 'nothing was sent before the kill')

    const second = await startServer(t, dbEnv, { WEBHOOK_POLL_INTERVAL_MS: '200' })
    await receiver.waitFor(1, 30_000)
    t.equal(receiver.received[0]!.headers['webhook-id'], queued.body.deliveryId)
    await new Promise((r) => setTimeout(r, 1000))
    t.equal(receiver.received.length, 1, 'delivered once')
    const list = await adminApi(second.base, 'GET', `/webhooks/${hook.body.id}/deliveries`)
    t.match(list.body.items[0], { id: queued.body.deliveryId, status: 'delivered', responseCode: 200, attempts: 1 })
  })

  t.test('two server processes on one database deliver each event exactly once', async (t) => {
    const dbEnv = await freshDatabase(t, dialect)
    const receiver = await startReceiver(t)
    const env = { WEBHOOK_POLL_INTERVAL_MS: '100' }
    const [a, b] = await Promise.all([startServer(t, dbEnv, env), startServer(t, dbEnv, env)])
    const hook = await adminApi(a!.base, 'POST', '/webhooks', { url: receiver.url, events: ['webhook.test'] })
    t.equal(hook.status, 201)
    const count = 30
    for (let i = 0; i < count; i++) {
      const server = i % 2 === 0 ? a! : b!
      t.equal((await adminApi(server.base, 'POST', `/webhooks/${hook.body.id}/test`)).status, 202)
    }
    await receiver.waitFor(count, 60_000)
    // Time for a second send of any of them, were one to happen.
    await new Promise((r) => setTimeout(r, 1500))
    const ids = receiver.received.map((r) => r.headers['webhook-id'])
    t.equal(ids.length, count, 'each event arrived')
    t.equal(new Set(ids).size, count, 'none arrived twice')
  })
})
