// The operator's webhooks (contract §13): endpoints, their secret, a test event, the deliveries and a retry.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../platform/schemas/common.js'
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

const tags = ['Admin', 'Webhooks']
const security = [{ adminKey: [] }]

const webhooksAdmin: FastifyPluginAsyncTypebox<{ policy: AddressPolicy; eventTypes: readonly string[] }> = async (
  app,
  { policy, eventTypes },
) => {
  const CreateWebhookBodySchema = createWebhookBodySchema(eventTypes)
  const UpdateWebhookBodySchema = updateWebhookBodySchema(eventTypes)
  app.get(
    '/webhooks',
    {
      schema: {
        tags,
        security,
        summary: 'Webhook endpoints, oldest first, secrets masked',
        querystring: WebhookListQuerySchema,
        response: { 200: WebhookListSchema, ...errors(400, 401, 403, 429) },
      },
    },
    async (request) => listWebhooks(app.db, request.query),
  )

  app.post(
    '/webhooks',
    {
      schema: {
        tags,
        security,
        summary: 'Add an endpoint; the answer shows its signing secret, the only time it is shown whole',
        body: CreateWebhookBodySchema,
        response: { 201: WebhookSchema, ...errors(400, 401, 403, 409, 429) },
      },
    },
    async (request, reply) => {
      const created = await createWebhook(app.db, policy, request.body, app.clock.now())
      reply.code(201)
      return created
    },
  )

  app.get(
    '/webhooks/:id',
    {
      schema: {
        tags,
        security,
        summary: 'One endpoint, its secret masked',
        params: WebhookParamsSchema,
        response: { 200: WebhookSchema, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => getWebhook(app.db, request.params.id),
  )

  app.put(
    '/webhooks/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Change an endpoint (the fields given); enabling it again clears why it was disabled',
        params: WebhookParamsSchema,
        body: UpdateWebhookBodySchema,
        response: { 200: WebhookSchema, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => updateWebhook(app.db, policy, request.params.id, request.body, app.clock.now()),
  )

  app.delete(
    '/webhooks/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Delete an endpoint with its deliveries, sent or not',
        params: WebhookParamsSchema,
        response: { 200: WebhookDeletedSchema, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      await deleteWebhook(app.db, request.params.id)
      return { id: request.params.id, deleted: true as const }
    },
  )

  app.post(
    '/webhooks/:id/rotate-secret',
    {
      schema: {
        tags,
        security,
        summary: 'A new signing secret, shown whole in this answer only; the old one stops signing at once',
        params: WebhookParamsSchema,
        response: { 200: WebhookSchema, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => rotateSecret(app.db, request.params.id, app.clock.now()),
  )

  app.post(
    '/webhooks/:id/test',
    {
      schema: {
        tags,
        security,
        summary: 'Queue a webhook.test event for this endpoint alone (sent even while it is disabled)',
        params: WebhookParamsSchema,
        response: { 202: WebhookTestResultSchema, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const queued = await queueTest(app.db, request.params.id, app.clock.now())
      reply.code(202)
      return queued
    },
  )

  app.get(
    '/webhooks/:id/deliveries',
    {
      schema: {
        tags,
        security,
        summary: 'Deliveries to this endpoint, newest first, each with every attempt',
        params: WebhookParamsSchema,
        querystring: WebhookDeliveryListQuerySchema,
        response: { 200: WebhookDeliveryListSchema, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => listDeliveries(app.db, request.params.id, request.query),
  )

  app.post(
    '/webhooks/:id/deliveries/:deliveryId/retry',
    {
      schema: {
        tags,
        security,
        summary: 'Send a delivery again now, with a new round of attempts',
        params: WebhookDeliveryParamsSchema,
        response: { 202: WebhookTestResultSchema, ...errors(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      const queued = await retryDelivery(app.db, request.params.id, request.params.deliveryId, app.clock.now())
      reply.code(202)
      return queued
    },
  )
}

export default webhooksAdmin
