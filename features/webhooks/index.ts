import { adminRoutes, defineFeature } from '../../platform/core/features.js'
import { ADMIN_PREFIX } from '../../platform/core/paths.js'
import { webhookEvents } from './events.js'
import { AddressPolicy } from './address.js'
import { HttpSender } from './sender.js'
import { countBacklog, recordEvent } from './service.js'
import { WebhookWorker } from './worker.js'
import admin from './admin.js'
import { components } from './docs.js'
import { manifest } from './manifest.js'

export { manifest } from './manifest.js'

declare module 'fastify' {
  interface FastifyInstance {
    webhookWorker: WebhookWorker
  }
}

export default defineFeature(
  manifest,
  async (app) => {
    app.openapi.describe({}, components)
    const { config } = app
    const policy = new AddressPolicy(config.WEBHOOK_ALLOW_PRIVATE)
    const events = webhookEvents(app.features)
    const eventTypes = events.map((event) => event.type)
    app.events.onRaised(async (trx, event) => {
      await recordEvent(trx, event, app.clock.now())
    })
    await app.register(adminRoutes(manifest, admin), { prefix: ADMIN_PREFIX, policy, eventTypes })

    const byOutcome = app.metrics.counter('outpost_webhook_deliveries_total')
    const byEvent = app.metrics.counter('outpost_webhook_deliveries_by_event_total', eventTypes)
    const byEndpoint = app.metrics.counter('outpost_webhook_deliveries_by_endpoint_total')
    const worker = new WebhookWorker(
      app.db,
      app.clock,
      app.log.child({ component: 'webhook-worker' }),
      new HttpSender(policy),
      {
        maxAttempts: config.WEBHOOK_MAX_ATTEMPTS,
        pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
        concurrency: 8,
        perEndpoint: 2,
        timeoutMs: 5000,
        // A send is cut at 5 s; the lease leaves room for recording its outcome on a slow database.
        leaseMs: 60_000,
        // 1 min, 3, 9, 27, 81 min, 4 h, 12 h: eight attempts spread over about 18 hours.
        backoffBaseMs: 60_000,
        backoffMaxMs: 12 * 3600_000,
        publicUrl: config.PUBLIC_URL,
        titles: new Map(events.map((event) => [event.type, event.title])),
      },
      // The worker delivers the `default` game's outbox (app.db): its counts are that game's.
      (event, endpointId, outcome) => {
        const game = app.games.default.id
        byOutcome(outcome, game)
        byEvent(event, game)
        byEndpoint(`${endpointId}:${outcome}`, game)
      },
    )
    app.decorate('webhookWorker', worker)
    app.metrics.readGaugeFrom('outpost_webhook_outbox', () => countBacklog(app.db))
    app.addHook('onReady', async () => worker.start())
    app.addHook('onClose', async () => worker.stop())
  },
  ['db', 'clock', 'config', 'metrics', 'events', 'openapi'],
)
