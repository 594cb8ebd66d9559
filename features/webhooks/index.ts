// Webhooks: the game tells an operator's other systems (Discord, Slack, their own) what happened.
// Features raise events on the hub inside the change's transaction; this feature writes them to its
// outbox there, and its worker (worker.ts) delivers them, signed, with retries.
import { adminRoutes, defineFeature, type FeatureManifest } from '../../platform/core/features.js'
import { ADMIN_PREFIX } from '../../platform/core/paths.js'
import { OWNER_RIGHTS } from '../../platform/security/roles.js'
import { webhookEvents } from './events.js'
import { AddressPolicy } from './address.js'
import { HttpSender } from './sender.js'
import { countBacklog, recordEvent } from './service.js'
import { WebhookWorker } from './worker.js'
import admin from './admin.js'
import { components } from './docs.js'
import { migrations } from './migrations/index.js'

export const manifest: FeatureManifest = {
  name: 'webhooks',
  tag: 'Webhooks',
  adminRights: OWNER_RIGHTS,
  tables: ['webhook_endpoints', 'webhook_deliveries', 'webhook_attempts'],
  migrations,
  counters: {
    byOutcome: {
      name: 'outpost_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome (delivered, retry: will be tried again, failed: given up or 410)',
      label: { name: 'outcome', values: ['delivered', 'retry', 'failed'] },
    },
    byEvent: {
      name: 'outpost_webhook_deliveries_by_event_total',
      help: 'Webhook delivery attempts by event type',
      // Every event type of the app, each from the start (webhookEvents, when the feature registers).
      label: { name: 'event', values: [] },
    },
    byEndpoint: {
      name: 'outpost_webhook_deliveries_by_endpoint_total',
      help: 'Webhook delivery attempts by endpoint id and outcome (`<id>:<outcome>`)',
      label: { name: 'endpoint', values: [] },
    },
  },
  gauges: {
    backlog: {
      name: 'outpost_webhook_outbox',
      help: 'Webhook deliveries not yet done, by status (pending, processing), read from the database when scraped',
      label: 'status',
    },
  },
}

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
      (event, endpointId, outcome) => {
        byOutcome(outcome)
        byEvent(event)
        byEndpoint(`${endpointId}:${outcome}`)
      },
    )
    app.decorate('webhookWorker', worker)
    app.metrics.readGaugeFrom('outpost_webhook_outbox', () => countBacklog(app.db))
    app.addHook('onReady', async () => worker.start())
    app.addHook('onClose', async () => worker.stop())
  },
  ['db', 'clock', 'config', 'metrics', 'events', 'openapi'],
)
