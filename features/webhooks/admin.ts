// The operator's webhooks (contract §13): endpoints, their secret, a test event, the deliveries and a retry.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import {
  WebhookDeletedSchema,
  WebhookDeliveryListQuerySchema,
  WebhookDeliveryListSchema,
  WebhookDeliveryParamsSchema,
  WebhookListQuerySchema,
  WebhookListSchema,
  WebhookParamsSchema,
  WebhookSchema,
  WebhookTestResultSchema,
  createWebhookBodySchema,
  updateWebhookBodySchema,
} from './schemas.js'
import type { AddressPolicy } from './address.js'
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  queueTest,
  retryDelivery,
  rotateSecret,
  updateWebhook,
} from './service.js'
import { routesOf } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'
import { EX, page } from '../../platform/openapi/examples.js'
import * as examples from './docs.js'

const webhooksAdmin: FastifyPluginAsyncTypebox<{ policy: AddressPolicy; eventTypes: readonly string[] }> = async (
  app,
  { policy, eventTypes },
) => {
  const CreateWebhookBodySchema = createWebhookBodySchema(eventTypes)
  const UpdateWebhookBodySchema = updateWebhookBodySchema(eventTypes)
  const route = routesOf(manifest)
  app.get(
    '/webhooks',
    {
      schema: route.admin({
        summary: 'Webhook endpoints, oldest first, secrets masked',
        querystring: WebhookListQuerySchema,
        response: { 200: WebhookListSchema },
        errors: [403],
        docs: {
          description: `Webhook endpoints, oldest first, URLs and secrets masked, each with its delivery health; a page of at most \`limit\` (1–100, default 50), \`cursor\` for the next. ${examples.MASKED} ${examples.HEALTH} ${examples.OWNERS}`,
          parameters: { limit: 50 },
          response: page([examples.hook]),
        },
      }),
    },
    async (request) => listWebhooks(request.db, request.query),
  )

  app.post(
    '/webhooks',
    {
      schema: route.admin({
        summary: 'Add an endpoint; the answer shows its signing secret, the only time it is shown whole',
        body: CreateWebhookBodySchema,
        response: { 201: WebhookSchema },
        errors: [403, 409],
        docs: {
          description:
            `Adds an endpoint: \`events\` (the types sent), \`format\` (\`standard\`, the default: signed JSON; \`discord\`; ` +
            `\`slack\`), \`enabled\` (default true), \`description\`. ${examples.URL_RULES} 201 with \`secret\` whole (\`whsec_\` + ` +
            `base64 of 24 random bytes): keep it, later reads show it masked. ${examples.MASKED} 400 \`WEBHOOK_URL_MASKED\` for a URL in ` +
            `that masked form. 409 \`WEBHOOK_LIMIT\` past 50 endpoints. ${examples.OWNERS}`,
          request: {
            url: 'https://discord.com/api/webhooks/123/abc',
            events: examples.hook.events,
            format: 'discord',
            description: examples.hook.description,
          },
          response: {
            ...examples.hook,
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
      }),
    },
    async (request, reply) => {
      const created = await createWebhook(request.db, policy, request.body, app.clock.now())
      reply.code(201)
      return created
    },
  )

  app.get(
    '/webhooks/:id',
    {
      schema: route.admin({
        summary: 'One endpoint, its secret masked',
        params: WebhookParamsSchema,
        response: { 200: WebhookSchema },
        errors: [403, 404],
        docs: {
          description: `One endpoint, its URL and secret masked, with its delivery health. ${examples.MASKED} ${examples.HEALTH} 404 \`WEBHOOK_NOT_FOUND\`. ${examples.OWNERS}`,
          parameters: { id: EX.id },
          response: examples.hook,
        },
      }),
    },
    async (request) => getWebhook(request.db, request.params.id),
  )

  app.put(
    '/webhooks/:id',
    {
      schema: route.admin({
        summary: 'Change an endpoint (the fields given); enabling it again clears why it was disabled',
        params: WebhookParamsSchema,
        body: UpdateWebhookBodySchema,
        response: { 200: WebhookSchema },
        errors: [403, 404],
        docs: {
          description: `Changes the fields given; \`url\` left out keeps the stored URL (reads never show it whole, so an edit that does not change it leaves it out). A \`url\` in the masked form reads show is refused: 400 \`WEBHOOK_URL_MASKED\`. ${examples.URL_RULES} Setting \`enabled\` clears \`disabledReason\`; deliveries that waited while it was disabled are sent. 404 \`WEBHOOK_NOT_FOUND\`. ${examples.OWNERS}`,
          parameters: { id: EX.id },
          request: { enabled: false },
          response: { ...examples.hook, enabled: false },
        },
      }),
    },
    async (request) => updateWebhook(request.db, policy, request.params.id, request.body, app.clock.now()),
  )

  app.delete(
    '/webhooks/:id',
    {
      schema: route.admin({
        summary: 'Delete an endpoint with its deliveries, sent or not',
        params: WebhookParamsSchema,
        response: { 200: WebhookDeletedSchema },
        errors: [403, 404],
        docs: {
          description: `Deletes an endpoint with its deliveries, sent or not. 404 \`WEBHOOK_NOT_FOUND\`. ${examples.OWNERS}`,
          parameters: { id: EX.id },
          response: { id: EX.id, deleted: true },
        },
      }),
    },
    async (request) => {
      await deleteWebhook(request.db, request.params.id)
      return { id: request.params.id, deleted: true as const }
    },
  )

  app.post(
    '/webhooks/:id/rotate-secret',
    {
      schema: route.admin({
        summary: 'A new signing secret, shown whole in this answer only; the old one stops signing at once',
        params: WebhookParamsSchema,
        response: { 200: WebhookSchema },
        errors: [403, 404],
        docs: {
          description: `A new signing secret, whole in this answer only; the old one stops signing at once. 404 \`WEBHOOK_NOT_FOUND\`. ${examples.OWNERS}`,
          parameters: { id: EX.id },
          response: { ...examples.hook, secret: 'whsec_bmV3c2VjcmV0bmV3c2VjcmV0bmV3c2Vj' },
        },
      }),
    },
    async (request) => rotateSecret(request.db, request.params.id, app.clock.now()),
  )

  app.post(
    '/webhooks/:id/test',
    {
      schema: route.admin({
        summary: 'Queue a webhook.test event for this endpoint alone (sent even while it is disabled)',
        params: WebhookParamsSchema,
        response: { 202: WebhookTestResultSchema },
        errors: [403, 404],
        docs: {
          description: `Queues a \`webhook.test\` event for this endpoint alone, sent by the worker within a second or so (even while the endpoint is disabled). 202 with the delivery id; follow it in the deliveries. ${examples.OWNERS}`,
          parameters: { id: EX.id },
          response: { deliveryId: EX.runId, status: 'pending' },
        },
      }),
    },
    async (request, reply) => {
      const queued = await queueTest(request.db, request.params.id, app.clock.now())
      reply.code(202)
      return queued
    },
  )

  app.get(
    '/webhooks/:id/deliveries',
    {
      schema: route.admin({
        summary: 'Deliveries to this endpoint, newest first, each with every attempt',
        params: WebhookParamsSchema,
        querystring: WebhookDeliveryListQuerySchema,
        response: { 200: WebhookDeliveryListSchema },
        errors: [403, 404],
        docs: {
          description:
            'Deliveries to this endpoint, newest first, optionally by `status` (`pending`, `processing`, `delivered`, ' +
            '`failed`; a `pending` one with `attempts` above 0 failed and waits for its retry, which the console shows as ' +
            '"retrying"), each with its last response code, duration and error, its next try while pending, and every ' +
            `attempt in \`history\`; paged by \`limit\` and \`cursor\`. ${examples.OWNERS}`,
          parameters: { id: EX.id, limit: 50 },
          response: page([examples.delivery]),
        },
      }),
    },
    async (request) => listDeliveries(request.db, request.params.id, request.query),
  )

  app.post(
    '/webhooks/:id/deliveries/:deliveryId/retry',
    {
      schema: route.admin({
        summary: 'Send a delivery again now, with a new round of attempts',
        params: WebhookDeliveryParamsSchema,
        response: { 202: WebhookTestResultSchema },
        errors: [403, 404, 409],
        docs: {
          description: `Sends a delivery again now, with a new round of attempts. 404 \`DELIVERY_NOT_FOUND\`; 409 \`DELIVERY_IN_PROGRESS\` while it is being sent. ${examples.OWNERS}`,
          parameters: { id: EX.id, deliveryId: EX.runId },
          response: { deliveryId: EX.runId, status: 'pending' },
        },
      }),
    },
    async (request, reply) => {
      const queued = await retryDelivery(request.db, request.params.id, request.params.deliveryId, app.clock.now())
      reply.code(202)
      return queued
    },
  )
}

export default webhooksAdmin
