import { randomUUID } from 'node:crypto'
import type { Selectable } from 'kysely'
import type { Db } from '../../db/types.js'
import type { WebhookEndpointsTable } from './tables.js'
import { affected } from '../../db/dialect.js'
import { AppError, notFound } from '../../platform/core/errors.js'
import { toIso, toIsoOrNull } from '../../platform/core/clock.js'
import type { RaisedEvent } from '../../platform/core/events.js'
import { keysetPage } from '../../platform/http/pagination.js'
import type {
  CreateWebhookBody,
  UpdateWebhookBody,
  Webhook,
  WebhookDeliveryList,
  WebhookDeliveryStatus,
  WebhookList,
} from './schemas.js'
import type { AddressPolicy } from './address.js'
import { maskUrl, URL_MASK, urlFingerprint } from '../../platform/security/secrets.js'
import { maskSecret, newSecret } from './signing.js'
import { healthOf, waitingCounts } from './health.js'
import type { StoredEvent } from './format.js'
import { TEST_EVENT } from './schemas.js'

/**
 * Webhook endpoints (the admin API) and the outbox they are fed from: `recordEvent` writes one
 * delivery row per enabled endpoint subscribed to the event's type, with the caller's transaction,
 * so the rows commit or roll back with the change that raised it. The worker (worker.ts) sends them.
 */

/** Endpoints at most: each raised event reads them all, and a list this long is already hard to manage. */
export const MAX_ENDPOINTS = 50

type EndpointRow = Selectable<WebhookEndpointsTable>

/**
 * An endpoint as every answer shows it: the URL masked (a Discord or Slack URL carries its token),
 * the secret masked unless it was just made.
 */
function toWebhook(row: EndpointRow, waiting: number, secret: 'masked' | 'whole' = 'masked'): Webhook {
  return {
    id: row.id,
    url: maskUrl(row.url) ?? URL_MASK,
    urlFingerprint: urlFingerprint(row.url),
    events: JSON.parse(row.events) as string[],
    format: row.format,
    enabled: Number(row.enabled) === 1,
    description: row.description,
    secret: secret === 'whole' ? row.secret : maskSecret(row.secret),
    disabledReason: row.disabled_reason,
    health: healthOf(row, waiting),
    createdAt: toIso(Number(row.created_at)),
    updatedAt: toIso(Number(row.updated_at)),
  }
}

const webhookNotFound = (id: string) =>
  notFound('WEBHOOK_NOT_FOUND', `No webhook has the id ${id}; list them with GET /api/v1/admin/webhooks`)

async function endpointRow(db: Db, id: string): Promise<EndpointRow> {
  const row = await db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst()
  if (!row) throw webhookNotFound(id)
  return row
}

/** The console's webhooks, oldest first, each with how many deliveries wait. */
export async function listWebhooks(db: Db, query: { limit: number; cursor?: string }): Promise<WebhookList> {
  const q = db.selectFrom('webhook_endpoints').selectAll()
  const page = await keysetPage(q, { ...query, keys: ['created_at', 'id'], direction: 'asc' })
  const waiting = await waitingCounts(
    db,
    page.items.map((row) => row.id),
  )
  return { items: page.items.map((row) => toWebhook(row, waiting.get(row.id) ?? 0)), nextCursor: page.nextCursor }
}

/** One webhook with how many deliveries wait. */
export async function getWebhook(db: Db, id: string): Promise<Webhook> {
  const row = await endpointRow(db, id)
  return toWebhook(row, (await waitingCounts(db, [id])).get(id) ?? 0)
}

/** A new endpoint; the answer carries the whole secret, the only time it is shown. */
export async function createWebhook(
  db: Db,
  policy: AddressPolicy,
  body: CreateWebhookBody,
  now: number,
): Promise<Webhook> {
  await policy.resolve(parseUrl(body.url))
  const count = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  if (Number(count.n) >= MAX_ENDPOINTS) {
    throw new AppError(409, 'WEBHOOK_LIMIT', `At most ${MAX_ENDPOINTS} webhooks; delete one you no longer use first`)
  }
  const row: EndpointRow = {
    id: randomUUID(),
    url: body.url,
    events: JSON.stringify(body.events),
    format: body.format ?? 'standard',
    enabled: body.enabled === false ? 0 : 1,
    description: body.description ?? null,
    secret: newSecret(),
    disabled_reason: null,
    created_at: now,
    updated_at: now,
    last_attempt_at: null,
    last_outcome: null,
    last_response_code: null,
    last_delivered_at: null,
    consecutive_failures: 0,
  }
  await db.insertInto('webhook_endpoints').values(row).execute()
  return toWebhook(row, 0, 'whole')
}

/** Changes a webhook, checking a new URL against the address policy as a new webhook's is. */
export async function updateWebhook(
  db: Db,
  policy: AddressPolicy,
  id: string,
  body: UpdateWebhookBody,
  now: number,
): Promise<Webhook> {
  await endpointRow(db, id)
  if (body.url !== undefined) await policy.resolve(parseUrl(body.url))
  await db
    .updateTable('webhook_endpoints')
    .set({
      ...(body.url !== undefined && { url: body.url }),
      ...(body.events !== undefined && { events: JSON.stringify(body.events) }),
      ...(body.format !== undefined && { format: body.format }),
      ...(body.description !== undefined && { description: body.description }),
      // Enabling again clears why the server had disabled it.
      ...(body.enabled !== undefined && { enabled: body.enabled ? 1 : 0, disabled_reason: null }),
      updated_at: now,
    })
    .where('id', '=', id)
    .execute()
  return getWebhook(db, id)
}

/** Deletes a webhook with its deliveries, sent or not. */
export async function deleteWebhook(db: Db, id: string): Promise<void> {
  // The deliveries and their attempts go with it (ON DELETE CASCADE), sent or not.
  await db
    .deleteFrom('webhook_attempts')
    .where('delivery_id', 'in', (eb) =>
      eb.selectFrom('webhook_deliveries as d').select('d.id').where('d.endpoint_id', '=', id),
    )
    .execute()
  await db.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute()
  const result = await db.deleteFrom('webhook_endpoints').where('id', '=', id).executeTakeFirst()
  if (affected(result) === 0) throw webhookNotFound(id)
}

/** A new secret, answered whole once; the old one stops signing at once. */
export async function rotateSecret(db: Db, id: string, now: number): Promise<Webhook> {
  const secret = newSecret()
  const result = await db
    .updateTable('webhook_endpoints')
    .set({ secret, updated_at: now })
    .where('id', '=', id)
    .executeTakeFirst()
  if (affected(result) === 0) throw webhookNotFound(id)
  const row = await endpointRow(db, id)
  return toWebhook(row, (await waitingCounts(db, [id])).get(id) ?? 0, 'whole')
}

/**
 * The URL as written, checked. The masked form reads show is refused rather than stored: it is no
 * address, and a client that sends back what it read must not lose the real one.
 */
function parseUrl(text: string): URL {
  if (text.includes(`/${URL_MASK}`)) {
    throw new AppError(
      400,
      'WEBHOOK_URL_MASKED',
      'This is the masked URL reads show, not the address: leave url out to keep the stored URL, or give the whole new one',
    )
  }
  try {
    return new URL(text)
  } catch {
    throw new AppError(400, 'WEBHOOK_URL_REFUSED', 'This webhook URL is refused: it is not a valid URL')
  }
}

// ---- the outbox ----------------------------------------------------------------------------

function deliveryRow(endpointId: string, event: StoredEvent, now: number) {
  return {
    id: randomUUID(),
    endpoint_id: endpointId,
    event_type: event.type,
    payload: JSON.stringify(event),
    status: 'pending' as const,
    attempts: 0,
    next_attempt_at: now,
    claim_token: null,
    lease_until: null,
    response_code: null,
    duration_ms: null,
    error: null,
    created_at: now,
    updated_at: now,
  }
}

/**
 * The hub's listener: one delivery per enabled endpoint subscribed to the type, written with `trx`
 * (the change's transaction). Returns how many were written.
 */
export async function recordEvent(trx: Db, event: RaisedEvent, now: number): Promise<number> {
  const endpoints = await trx
    .selectFrom('webhook_endpoints')
    .select(['id', 'events'])
    .where('enabled', '=', 1)
    .execute()
  const subscribed = endpoints.filter((endpoint) => (JSON.parse(endpoint.events) as string[]).includes(event.type))
  // The payload is read only for an event some endpoint hears (its reads may cost the raiser statements).
  if (subscribed.length === 0) return 0
  const stored: StoredEvent = { type: event.type, timestamp: toIso(now), data: await event.data() }
  await trx
    .insertInto('webhook_deliveries')
    .values(subscribed.map((endpoint) => deliveryRow(endpoint.id, stored, now)))
    .execute()
  return subscribed.length
}

/** `POST /webhooks/{id}/test`: a `webhook.test` delivery to this endpoint alone, enabled or not. */
export async function queueTest(db: Db, id: string, now: number) {
  const endpoint = await endpointRow(db, id)
  const event: StoredEvent = {
    type: TEST_EVENT.type,
    timestamp: toIso(now),
    data: { webhookId: endpoint.id, message: 'A test event sent from the Outpost console or admin API' },
  }
  const row = deliveryRow(endpoint.id, event, now)
  await db.insertInto('webhook_deliveries').values(row).execute()
  return { deliveryId: row.id, status: row.status }
}

/** Sends a delivery again (delivered or failed: a new round of attempts; pending: at once). */
export async function retryDelivery(db: Db, id: string, deliveryId: string, now: number) {
  await endpointRow(db, id)
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', attempts: 0, next_attempt_at: now, updated_at: now })
    .where('id', '=', deliveryId)
    .where('endpoint_id', '=', id)
    .where('status', '!=', 'processing')
    .executeTakeFirst()
  if (affected(result) === 0) {
    const exists = await db
      .selectFrom('webhook_deliveries')
      .select('status')
      .where('id', '=', deliveryId)
      .where('endpoint_id', '=', id)
      .executeTakeFirst()
    if (!exists) throw notFound('DELIVERY_NOT_FOUND', `This webhook has no delivery ${deliveryId}`)
    throw new AppError(409, 'DELIVERY_IN_PROGRESS', 'The delivery is being sent right now; look again in a few seconds')
  }
  return { deliveryId, status: 'pending' as const }
}

/** A webhook's deliveries, newest first, optionally of one status. */
export async function listDeliveries(
  db: Db,
  id: string,
  query: { limit: number; cursor?: string; status?: WebhookDeliveryStatus },
): Promise<WebhookDeliveryList> {
  await endpointRow(db, id)
  let q = db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', id)
  if (query.status !== undefined) q = q.where('status', '=', query.status)
  const page = await keysetPage(q, { cursor: query.cursor, limit: query.limit, keys: ['created_at', 'id'] })
  const ids = page.items.map((row) => row.id)
  const attempts =
    ids.length === 0
      ? []
      : await db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', ids).orderBy('id').execute()
  return {
    items: page.items.map((row) => ({
      id: row.id,
      event: row.event_type,
      status: row.status,
      attempts: Number(row.attempts),
      responseCode: row.response_code === null ? null : Number(row.response_code),
      durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
      error: row.error,
      nextAttemptAt: row.status === 'pending' ? toIso(Number(row.next_attempt_at)) : null,
      createdAt: toIso(Number(row.created_at)),
      history: attempts
        .filter((a) => a.delivery_id === row.id)
        .map((a) => ({
          attempt: Number(a.attempt),
          at: toIso(Number(a.at)),
          outcome: a.outcome,
          responseCode: a.response_code === null ? null : Number(a.response_code),
          durationMs: Number(a.duration_ms),
          error: a.error,
          nextAttemptAt: toIsoOrNull(a.next_attempt_at === null ? null : Number(a.next_attempt_at)),
        })),
    })),
    nextCursor: page.nextCursor,
  }
}

/** Deliveries not yet done, by status (the outbox backlog gauge). */
export async function countBacklog(db: Db): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .where('status', 'in', ['pending', 'processing'])
    .groupBy('status')
    .execute()
  const counts: Record<string, number> = { pending: 0, processing: 0 }
  for (const row of rows) counts[row.status] = Number(row.n)
  return counts
}
