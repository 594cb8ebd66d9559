import type { NamedSchemas } from '../../platform/openapi/index.js'
import { EX } from '../../platform/openapi/examples.js'
import { WebhookDeliveryListSchema, WebhookListSchema, WebhookSchema, WebhookTestResultSchema } from './schemas.js'

export const OWNERS = 'Owners only (and the X-Admin-Key); other roles get 403 FORBIDDEN.'
export const URL_RULES =
  '`url` must be http:// or https:// and its host must resolve to public addresses only: loopback, private, ' +
  'link-local, carrier-grade NAT and other non-public ranges answer 400 `WEBHOOK_URL_REFUSED` unless the server ' +
  'runs with `WEBHOOK_ALLOW_PRIVATE=true` (checked again before each send).'
export const MASKED =
  '`url` is answered masked, here and in every read and list: its origin, the leading path words and `****` ' +
  "for the rest (`https://discord.com/api/webhooks/****`), with `urlFingerprint`, the first 8 hex digits of the whole URL's " +
  'SHA-256, to tell endpoints apart; the whole URL is only ever written, and the audit log keeps it masked too.'
export const HEALTH =
  '`health` says how deliveries go: `state` (`healthy`, `failing`: the last attempt failed, `disabled`, `untried`), ' +
  'the last attempt (`lastAttemptAt`, `lastOutcome`, `lastResponseCode`), `lastDeliveredAt`, `consecutiveFailures` ' +
  'and `waiting` (deliveries not yet sent).'
export const hook = {
  id: EX.id,
  url: 'https://discord.com/api/webhooks/****',
  urlFingerprint: '3f9a0c2e',
  events: ['crash.group_created', 'leaderboard.new_leader'],
  format: 'discord',
  enabled: true,
  description: 'The #live-ops channel',
  secret: 'whsec_…k2Qz',
  disabledReason: null,
  health: {
    state: 'failing',
    lastAttemptAt: EX.now,
    lastOutcome: 'retry',
    lastResponseCode: 500,
    lastDeliveredAt: EX.earlier,
    consecutiveFailures: 2,
    waiting: 1,
  },
  createdAt: EX.earlier,
  updatedAt: EX.now,
}
export const delivery = {
  id: EX.runId,
  event: 'crash.group_created',
  status: 'pending',
  attempts: 1,
  responseCode: 500,
  durationMs: 84,
  error: 'Internal Server Error',
  nextAttemptAt: EX.later,
  createdAt: EX.now,
  history: [
    {
      attempt: 1,
      at: EX.now,
      outcome: 'retry',
      responseCode: 500,
      durationMs: 84,
      error: 'Internal Server Error',
      nextAttemptAt: EX.later,
    },
  ],
}

export const components: NamedSchemas = {
  Webhook: WebhookSchema,
  WebhookList: WebhookListSchema,
  WebhookDeliveryPage: WebhookDeliveryListSchema,
  WebhookQueued: WebhookTestResultSchema,
}
