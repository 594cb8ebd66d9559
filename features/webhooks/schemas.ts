import { Type, type Static } from '@sinclair/typebox'
import { StringEnum, TimestampSchema, UuidSchema } from '../../platform/schemas/common.js'

/** The event only the test route sends (contract §13): the webhooks feature's own, last in the list. */
export const TEST_EVENT = { type: 'webhook.test', title: 'Test event' } as const
/**
 * What an endpoint can subscribe to (contract §13): every event a feature's manifest declares, then
 * `webhook.test`. Known when the app registers (webhooks/events.ts), so no type lists them.
 */
export type WebhookEventType = string

export const WEBHOOK_FORMATS = ['standard', 'discord', 'slack'] as const
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number]

/**
 * A delivery's state: waiting for its (next) attempt, being sent, delivered, or given up on. A pending
 * delivery with attempts made is being retried (the console says "retrying"): `nextAttemptAt` says when.
 */
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'processing', 'delivered', 'failed'] as const
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number]

export const WEBHOOK_URL_MAX = 2048
export const WEBHOOK_DESCRIPTION_MAX = 500

const UrlSchema = Type.String({
  minLength: 8,
  maxLength: WEBHOOK_URL_MAX,
  pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
  description: 'http:// or https:// URL the events are POSTed to; its host must resolve to a public address',
})
/** The endpoint's `events`, one of the app's event types each. */
const eventsSchema = (types: readonly string[]) =>
  Type.Array(StringEnum(types as [string, ...string[]]), {
    minItems: 1,
    maxItems: types.length,
    uniqueItems: true,
    description: 'The event types sent to this endpoint',
  })
const FormatSchema = StringEnum(WEBHOOK_FORMATS, {
  description: 'standard: signed JSON `{ type, timestamp, data }`; discord / slack: a message a person reads',
})
const DescriptionSchema = Type.String({ maxLength: WEBHOOK_DESCRIPTION_MAX })

/** The body that adds an endpoint, for the app's event types. */
export const createWebhookBodySchema = (types: readonly string[]) =>
  Type.Object({
    url: UrlSchema,
    events: eventsSchema(types),
    format: Type.Optional(FormatSchema),
    enabled: Type.Optional(Type.Boolean({ default: true })),
    description: Type.Optional(DescriptionSchema),
  })
export type CreateWebhookBody = Static<ReturnType<typeof createWebhookBodySchema>>

/** The body that changes an endpoint, for the app's event types. */
export const updateWebhookBodySchema = (types: readonly string[]) =>
  Type.Object(
    {
      url: Type.Optional({ ...UrlSchema, description: `${UrlSchema.description}; left out, the stored URL stays` }),
      events: Type.Optional(eventsSchema(types)),
      format: Type.Optional(FormatSchema),
      enabled: Type.Optional(Type.Boolean()),
      description: Type.Optional(Type.Union([DescriptionSchema, Type.Null()])),
    },
    { minProperties: 1 },
  )
export type UpdateWebhookBody = Static<ReturnType<typeof updateWebhookBodySchema>>

/** What the list shows of an endpoint's deliveries (added in contract revision 5). */
export const WEBHOOK_HEALTH_STATES = ['healthy', 'failing', 'disabled', 'untried'] as const
export const WebhookHealthSchema = Type.Object(
  {
    state: StringEnum(WEBHOOK_HEALTH_STATES, {
      description:
        'disabled: the endpoint is off (by an owner, or by a 410); failing: its last attempt failed; ' +
        'untried: no attempt yet; healthy: its last attempt delivered',
    }),
    lastAttemptAt: Type.Union([TimestampSchema, Type.Null()], { description: 'When the last attempt ended' }),
    lastOutcome: Type.Union([StringEnum(['delivered', 'retry', 'failed'] as const), Type.Null()], {
      description: 'How the last attempt ended: delivered, retry (failed, tried again later) or failed (given up)',
    }),
    lastResponseCode: Type.Union([Type.Integer(), Type.Null()], {
      description: "The receiver's status code at the last attempt; null when it did not answer",
    }),
    lastDeliveredAt: Type.Union([TimestampSchema, Type.Null()], { description: 'When an attempt last delivered' }),
    consecutiveFailures: Type.Integer({ minimum: 0, description: 'Attempts that failed since the last delivered one' }),
    waiting: Type.Integer({ minimum: 0, description: 'Deliveries waiting for their (next) attempt or being sent' }),
  },
  { description: 'Delivery health, kept with each attempt' },
)
export type WebhookHealth = Static<typeof WebhookHealthSchema>

export const WebhookSchema = Type.Object({
  id: UuidSchema,
  url: Type.String({
    description:
      'Masked: the origin, the leading path words, and `****` for the rest (where a Discord or Slack ' +
      'URL carries its token); the whole URL is only ever written',
  }),
  urlFingerprint: Type.String({
    pattern: '^[0-9a-f]{8}$',
    description: "The first 8 hex digits of the whole URL's SHA-256: tells two endpoints apart, shows nothing of it",
  }),
  events: Type.Array(Type.String()),
  format: FormatSchema,
  enabled: Type.Boolean(),
  description: Type.Union([Type.String(), Type.Null()]),
  secret: Type.String({ description: 'Masked (`whsec_…` and its last 4 characters); whole only when made' }),
  disabledReason: Type.Union([Type.String(), Type.Null()], {
    description: 'Why the server disabled the endpoint (its receiver answered 410), or null',
  }),
  health: WebhookHealthSchema,
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
})
export type Webhook = Static<typeof WebhookSchema>

export const WebhookListSchema = Type.Object({
  items: Type.Array(WebhookSchema),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
})
export type WebhookList = Static<typeof WebhookListSchema>

export const WebhookDeletedSchema = Type.Object({ id: UuidSchema, deleted: Type.Literal(true) })

export const WebhookParamsSchema = Type.Object({ id: UuidSchema })
export const WebhookDeliveryParamsSchema = Type.Object({ id: UuidSchema, deliveryId: UuidSchema })
export const WebhookListQuerySchema = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
})

export const WebhookAttemptSchema = Type.Object({
  attempt: Type.Integer(),
  at: TimestampSchema,
  outcome: StringEnum(['delivered', 'retry', 'failed'] as const),
  responseCode: Type.Union([Type.Integer(), Type.Null()]),
  durationMs: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()]),
  nextAttemptAt: Type.Union([TimestampSchema, Type.Null()]),
})

export const WebhookDeliverySchema = Type.Object({
  id: UuidSchema,
  event: Type.String(),
  status: StringEnum(WEBHOOK_DELIVERY_STATUSES),
  attempts: Type.Integer({ description: 'Attempts made so far' }),
  responseCode: Type.Union([Type.Integer(), Type.Null()], { description: 'Of the last attempt' }),
  durationMs: Type.Union([Type.Integer(), Type.Null()], { description: 'Of the last attempt' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Of the last attempt' }),
  nextAttemptAt: Type.Union([TimestampSchema, Type.Null()], {
    description: 'The next try, while pending (with `attempts` above 0: a retry after a failed attempt)',
  }),
  createdAt: TimestampSchema,
  history: Type.Array(WebhookAttemptSchema, { description: 'Every attempt, oldest first' }),
})
export type WebhookDelivery = Static<typeof WebhookDeliverySchema>

export const WebhookDeliveryListSchema = Type.Object({
  items: Type.Array(WebhookDeliverySchema),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
})
export type WebhookDeliveryList = Static<typeof WebhookDeliveryListSchema>

export const WebhookDeliveryListQuerySchema = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
  status: Type.Optional(StringEnum(WEBHOOK_DELIVERY_STATUSES)),
})

export const WebhookTestResultSchema = Type.Object({
  deliveryId: UuidSchema,
  status: StringEnum(WEBHOOK_DELIVERY_STATUSES),
})
