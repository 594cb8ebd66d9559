// The operator's news: list (scheduled items included), create, update, delete.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../platform/schemas/common.js'
import {
  AdminNewsListQuerySchema,
  AdminNewsListSchema,
  AdminNewsSchema,
  CreateNewsBodySchema,
  NewsDeletedSchema,
  NewsIdParamsSchema,
  UpdateNewsBodySchema,
} from './schemas.js'
import type { ContentCache } from '../../platform/content/content-cache.js'
import { createNews, deleteNews, listNews, updateNews, type NewsView } from './service.js'

const tags = ['Admin', 'News']
const security = [{ adminKey: [] }]

const newsAdmin: FastifyPluginAsyncTypebox<{ cache: ContentCache<NewsView> }> = async (app, { cache }) => {
  app.get(
    '/news',
    {
      schema: {
        tags,
        security,
        summary: 'Every news item, scheduled ones included, latest release first',
        querystring: AdminNewsListQuerySchema,
        response: { 200: AdminNewsListSchema, ...errors(400, 401, 429) },
      },
    },
    async (request) => listNews(app.db, request.query, app.clock.now()),
  )

  app.post(
    '/news',
    {
      schema: {
        tags,
        security,
        summary: 'Publish a news item now, or schedule it with a future releaseDate',
        body: CreateNewsBodySchema,
        response: { 201: AdminNewsSchema, ...errors(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const created = await cache.afterWrite(createNews(app.db, request.body, app.clock.now()))
      // Returned, not sent: an admin write's reply leaves only after its transaction (and audit entry) commits.
      reply.code(201)
      return created
    },
  )

  app.put(
    '/news/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Change a news item (fields not sent stay as they are)',
        params: NewsIdParamsSchema,
        body: UpdateNewsBodySchema,
        response: { 200: AdminNewsSchema, ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => cache.afterWrite(updateNews(app.db, request.params.id, request.body, app.clock.now())),
  )

  app.delete(
    '/news/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Delete a news item',
        params: NewsIdParamsSchema,
        response: { 200: NewsDeletedSchema, ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => {
      await cache.afterWrite(deleteNews(app.db, request.params.id))
      return { id: request.params.id, deleted: true as const }
    },
  )
}

export default newsAdmin
