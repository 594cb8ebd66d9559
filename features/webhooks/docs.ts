import type { NamedSchemas, OperationDocs } from '../../platform/openapi/index.js'
import { EX, page } from '../../platform/openapi/examples.js'
import { WebhookDeliveryListSchema, WebhookListSchema, WebhookSchema, WebhookTestResultSchema } from './schemas.js'
import { ADMIN_PREFIX } from '../../platform/core/paths.js'

const ADMIN = `${ADMIN_PREFIX}/webhooks`
const OWNERS = 'Owners only (and the X-Admin-Key); other roles get 403 FORBIDDEN.'
const URL_RULES =
  '`url` must be http:// or https:// and its host must resolve to public addresses only: loopback, private, ' +
  'link-local, carrier-grade NAT and other non-public ranges answer 400 `WEBHOOK_URL_REFUSED` unless the server ' +
  'runs with `WEBHOOK_ALLOW_PRIVATE=true` (checked again before each send).'
const MASKED =
  '`url` is answered masked, here and in every read and list: its origin, the leading path words and `****` ' +
  "for the rest (`https://discord.com/api/webhooks/****`), with `urlFingerprint`, the first 8 hex digits of the whole URL's " +
  'SHA-256, to tell endpoints apart; the whole URL is only ever written, and the audit log keeps it masked too.'
const HEALTH =
  '`health` says how deliveries go: `state` (`healthy`, `failing`: the last attempt failed, `disabled`, `untried`), ' +
  'the last attempt (`lastAttemptAt`, `lastOutcome`, `lastResponseCode`), `lastDeliveredAt`, `consecutiveFailures` ' +
  'and `waiting` (deliveries not yet sent).'
const hook = {
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
const delivery = {
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

export const docs: OperationDocs = {
  [`GET ${ADMIN}`]: {
    description: `Webhook endpoints, oldest first, URLs and secrets masked, each with its delivery health; a page of at most \`limit\` (1–100, default 50), \`cursor\` for the next. ${MASKED} ${HEALTH} ${OWNERS}`,
    parameters: { limit: 50 },
    response: page([hook]),
  },
  [`POST ${ADMIN}`]: {
    description:
      `Adds an endpoint: \`events\` (the types sent), \`format\` (\`standard\`, the default: signed JSON; \`discord\`; ` +
      `\`slack\`), \`enabled\` (default true), \`description\`. ${URL_RULES} 201 with \`secret\` whole (\`whsec_\` + ` +
      `base64 of 24 random bytes): keep it, later reads show it masked. ${MASKED} 400 \`WEBHOOK_URL_MASKED\` for a URL in ` +
      `that masked form. 409 \`WEBHOOK_LIMIT\` past 50 endpoints. ${OWNERS}`,
    request: {
      url: 'https://discord.com/api/webhooks/123/abc',
      events: hook.events,
      format: 'discord',
      description: hook.description,
    },
    response: {
      ...hook,
      secret: 'whsec_C2FkZmFzZGZhc2RmYXNkZmFzZGZhc2Rm',
      health: {
        state: 'untried',
        lastAttemptAt: null,
        lastOutcome: null,
        lastResponseCode: null,
        lastDeliveredAt: null,
        consecutiveFailures: 0,
        waiting: 0,
      },
    },
  },
  [`GET ${ADMIN}/{id}`]: {
    description: `One endpoint, its URL and secret masked, with its delivery health. ${MASKED} ${HEALTH} 404 \`WEBHOOK_NOT_FOUND\`. ${OWNERS}`,
    parameters: { id: EX.id },
    response: hook,
  },
  [`PUT ${ADMIN}/{id}`]: {
    description: `Changes the fields given; \`url\` left out keeps the stored URL (reads never show it whole, so an edit that does not change it leaves it out). A \`url\` in the masked form reads show is refused: 400 \`WEBHOOK_URL_MASKED\`. ${URL_RULES} Setting \`enabled\` clears \`disabledReason\`; deliveries that waited while it was disabled are sent. 404 \`WEBHOOK_NOT_FOUND\`. ${OWNERS}`,
    parameters: { id: EX.id },
    request: { enabled: false },
    response: { ...hook, enabled: false },
  },
  [`DELETE ${ADMIN}/{id}`]: {
    description: `Deletes an endpoint with its deliveries, sent or not. 404 \`WEBHOOK_NOT_FOUND\`. ${OWNERS}`,
    parameters: { id: EX.id },
    response: { id: EX.id, deleted: true },
  },
  [`POST ${ADMIN}/{id}/rotate-secret`]: {
    description: `A new signing secret, whole in this answer only; the old one stops signing at once. 404 \`WEBHOOK_NOT_FOUND\`. ${OWNERS}`,
    parameters: { id: EX.id },
    response: { ...hook, secret: 'whsec_bmV3c2VjcmV0bmV3c2VjcmV0bmV3c2Vj' },
  },
  [`POST ${ADMIN}/{id}/test`]: {
    description: `Queues a \`webhook.test\` event for this endpoint alone, sent by the worker within a second or so (even while the endpoint is disabled). 202 with the delivery id; follow it in the deliveries. ${OWNERS}`,
    parameters: { id: EX.id },
    response: { deliveryId: EX.runId, status: 'pending' },
  },
  [`GET ${ADMIN}/{id}/deliveries`]: {
    description:
      'Deliveries to this endpoint, newest first, optionally by `status` (`pending`, `processing`, `delivered`, ' +
      '`failed`; a `pending` one with `attempts` above 0 failed and waits for its retry, which the console shows as ' +
      '"retrying"), each with its last response code, duration and error, its next try while pending, and every ' +
      `attempt in \`history\`; paged by \`limit\` and \`cursor\`. ${OWNERS}`,
    parameters: { id: EX.id, limit: 50 },
    response: page([delivery]),
  },
  [`POST ${ADMIN}/{id}/deliveries/{deliveryId}/retry`]: {
    description: `Sends a delivery again now, with a new round of attempts. 404 \`DELIVERY_NOT_FOUND\`; 409 \`DELIVERY_IN_PROGRESS\` while it is being sent. ${OWNERS}`,
    parameters: { id: EX.id, deliveryId: EX.runId },
    response: { deliveryId: EX.runId, status: 'pending' },
  },
}
