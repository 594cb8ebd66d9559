import t from 'tap'
import { sql } from 'kysely'
import { createDb, MIGRATION_QUERY_TIMEOUT_MS } from '../../../db/index.js'
import { migrateToLatest } from '../../../db/migrate.js'
import { MIGRATIONS } from '../../../app.js'
import { eachDialect, freshDatabase, testConfig } from '../../helpers/app.js'
import { startReceiver } from '../../helpers/receiver.js'
import { createHook, hookApp } from '../../helpers/webhooks.js'

/**
 * An endpoint's delivery health, in its read and in the list: a dead endpoint reads "failing" with
 * how many attempts failed in a row, never just "enabled"; a failed delivery waiting for its retry
 * is told apart from one never tried.
 */
eachDialect(t, async (t, dialect) => {
  const ctx = await hookApp(t, dialect)
  const { admin, clock } = ctx
  const worker = ctx.app.webhookWorker

  t.test('untried, failing (and how long), healthy again, disabled by a 410', async (t) => {
    const receiver = await startReceiver(t)
    const hook = await createHook(ctx, { url: receiver.url, events: ['webhook.test'] })
    const read = async () => (await admin({ method: 'GET', url: `/webhooks/${hook.id}` })).json()
    const listed = async () =>
      (await admin({ method: 'GET', url: '/webhooks?limit=100' })).json().items.find((w: any) => w.id === hook.id)
    t.same((await read()).health, {
      state: 'untried',
      lastAttemptAt: null,
      lastOutcome: null,
      lastResponseCode: null,
      lastDeliveredAt: null,
      consecutiveFailures: 0,
      waiting: 0,
    })

    receiver.answers.push(500, 503)
    await admin({ method: 'POST', url: `/webhooks/${hook.id}/test` })
    t.match((await read()).health, { state: 'untried', waiting: 1 }, 'a queued delivery waits')
    await worker.runOnce()
    const first = await read()
    t.match(first, { enabled: true })
    t.match(first.health, {
      state: 'failing',
      lastOutcome: 'retry',
      lastResponseCode: 500,
      lastDeliveredAt: null,
      consecutiveFailures: 1,
      waiting: 1,
    })
    t.equal(first.health.lastAttemptAt, new Date(clock.now()).toISOString())
    t.same((await listed()).health, first.health, 'the list shows the same health')
    const delivery = (await admin({ method: 'GET', url: `/webhooks/${hook.id}/deliveries` })).json().items[0]
    t.match(delivery, { status: 'pending', attempts: 1 }, 'a retry waits: pending with an attempt made')
    t.ok(Date.parse(delivery.nextAttemptAt) > clock.now(), 'its next try is ahead')

    clock.advance(10 * 60_000)
    await worker.runOnce()
    t.match((await read()).health, { state: 'failing', lastResponseCode: 503, consecutiveFailures: 2 })

    clock.advance(10 * 60_000)
    await worker.runOnce()
    const healthy = (await read()).health
    t.match(healthy, {
      state: 'healthy',
      lastOutcome: 'delivered',
      lastResponseCode: 200,
      consecutiveFailures: 0,
      waiting: 0,
    })
    t.equal(healthy.lastDeliveredAt, healthy.lastAttemptAt)

    receiver.answers.push(410)
    await admin({ method: 'POST', url: `/webhooks/${hook.id}/test` })
    await worker.runOnce()
    t.match(await read(), {
      enabled: false,
      disabledReason: /410/,
      health: { state: 'disabled', lastOutcome: 'failed', lastResponseCode: 410, consecutiveFailures: 1 },
    })
    t.equal((await read()).health.lastDeliveredAt, healthy.lastDeliveredAt, 'when it last delivered stays')
    await admin({ method: 'DELETE', url: `/webhooks/${hook.id}` })
  })

  t.test('a receiver that is gone for good: failing with every attempt counted, the deliveries failed', async (t) => {
    const receiver = await startReceiver(t)
    const hook = await createHook(ctx, { url: receiver.url, events: ['webhook.test'] })
    const attempts = worker.settings.maxAttempts
    for (let i = 0; i < attempts * 2; i++) receiver.answers.push(502)
    await admin({ method: 'POST', url: `/webhooks/${hook.id}/test` })
    await admin({ method: 'POST', url: `/webhooks/${hook.id}/test` })
    for (let round = 0; round < attempts; round++) {
      await worker.runOnce()
      clock.advance(15 * 3600_000)
    }
    const health = (await admin({ method: 'GET', url: `/webhooks/${hook.id}` })).json().health
    t.match(health, { state: 'failing', lastOutcome: 'failed', consecutiveFailures: attempts * 2, waiting: 0 })
    const items = (await admin({ method: 'GET', url: `/webhooks/${hook.id}/deliveries` })).json().items
    t.same(
      items.map((d: any) => [d.status, d.attempts, d.nextAttemptAt]),
      [
        ['failed', attempts, null],
        ['failed', attempts, null],
      ],
    )
    await admin({ method: 'DELETE', url: `/webhooks/${hook.id}` })
  })

  t.test('0124 fills the health of endpoints that already have attempts', async (t) => {
    const config = testConfig(await freshDatabase(t, dialect))
    const db = createDb({ ...config, DB_QUERY_TIMEOUT_MS: MIGRATION_QUERY_TIMEOUT_MS })
    t.teardown(() => db.destroy())
    await migrateToLatest(db, MIGRATIONS)
    const health = MIGRATIONS['0124_add_webhook_health']!
    await health.down!(db)
    const endpoint = (id: string) =>
      sql`insert into webhook_endpoints (id, url, events, format, enabled, description, secret, disabled_reason, created_at, updated_at)
        values (${id}, 'https://example.com/x', '["webhook.test"]', 'standard', 1, null, 'whsec_x', null, 1, 1)`.execute(
        db,
      )
    await endpoint('e1')
    await endpoint('e2')
    await sql`insert into webhook_deliveries (id, endpoint_id, event_type, payload, status, attempts, next_attempt_at, created_at, updated_at)
      values ('d1', 'e1', 'webhook.test', '{}', 'pending', 3, 0, 1, 1), ('d2', 'e1', 'webhook.test', '{}', 'delivered', 1, 0, 1, 1)`.execute(
      db,
    )
    const attempt = (delivery: string, n: number, at: number, outcome: string, code: number) =>
      sql`insert into webhook_attempts (delivery_id, attempt, at, outcome, response_code, duration_ms)
        values (${delivery}, ${n}, ${at}, ${outcome}, ${code}, 5)`.execute(db)
    await attempt('d1', 1, 1000, 'retry', 500)
    await attempt('d2', 1, 2000, 'delivered', 204)
    await attempt('d1', 2, 3000, 'retry', 502)
    await attempt('d1', 3, 4000, 'retry', 503)
    await health.up(db)
    const rows = await db
      .selectFrom('webhook_endpoints')
      .select([
        'id',
        'last_attempt_at',
        'last_outcome',
        'last_response_code',
        'last_delivered_at',
        'consecutive_failures',
      ])
      .orderBy('id')
      .execute()
    t.same(
      rows.map((r) => [
        r.id,
        r.last_attempt_at === null ? null : Number(r.last_attempt_at),
        r.last_outcome,
        r.last_response_code === null ? null : Number(r.last_response_code),
        r.last_delivered_at === null ? null : Number(r.last_delivered_at),
        Number(r.consecutive_failures),
      ]),
      [
        ['e1', 4000, 'retry', 503, 2000, 2],
        ['e2', null, null, null, null, 0],
      ],
    )
  })
})
