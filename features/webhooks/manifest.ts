import type { FeatureManifest } from '../../platform/core/features.js'
import { OWNER_RIGHTS } from '../../platform/security/roles.js'
import { migrations } from './migrations/index.js'

/** Webhooks' tables, delivery counters and outbox gauge, owners only, for the platform and its route files. */
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
