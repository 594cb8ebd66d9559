// The operator's news: list (scheduled items included), create, update, delete.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
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
import type { PerGame } from '../../platform/games/registry.js'
import { routesOf } from '../../platform/openapi/routes.js'
import { EX, page } from '../../platform/openapi/examples.js'
import { createNews, deleteNews, listNews, updateNews, type NewsView } from './service.js'
import { STORED_NEWS_EXAMPLE as stored } from './docs.js'
import { manifest } from './manifest.js'

const newsAdmin: FastifyPluginAsyncTypebox<{ cache: PerGame<ContentCache<NewsView>> }> = async (app, { cache }) => {
  const route = routesOf(manifest)
  app.get(
    '/news',
    {
      schema: route.admin({
        summary: 'Every news item, scheduled ones included, latest release first',
        querystring: AdminNewsListQuerySchema,
        response: { 200: AdminNewsListSchema },
        docs: {
          description:
            'Every news item, scheduled ones included, latest release first, optionally of one `languageCode`; a page of at most `limit` (1–100, default 50), `cursor` for the next.',
          parameters: { limit: 50 },
          response: page([stored]),
        },
      }),
    },
    async (request) => listNews(request.db, request.query, app.clock.now()),
  )

  app.post(
    '/news',
    {
      schema: route.admin({
        summary: 'Publish a news item now, or schedule it with a future releaseDate',
        body: CreateNewsBodySchema,
        response: { 201: AdminNewsSchema },
        docs: {
          description:
            'Publishes a news item: `title` 1–200 characters on one line, `message` 1–10,000, `languageCode` a BCP 47 tag ' +
            '(stored canonical), `releaseDate` optional (absent: now; in the future: scheduled, hidden from players until then). 201 with the stored item.',
          request: { title: 'Season 3 starts', message: 'New boards, new cosmetics.', languageCode: 'en' },
          response: stored,
        },
      }),
    },
    async (request, reply) => {
      const created = await cache.of(request.game).afterWrite(createNews(request.db, request.body, app.clock.now()))
      // Returned, not sent: an admin write's reply leaves only after its transaction (and audit entry) commits.
      reply.code(201)
      return created
    },
  )

  app.put(
    '/news/:id',
    {
      schema: route.admin({
        summary: 'Change a news item (fields not sent stay as they are)',
        params: NewsIdParamsSchema,
        body: UpdateNewsBodySchema,
        response: { 200: AdminNewsSchema },
        errors: [404],
        docs: {
          description: 'Changes a news item: the fields sent, the others stay as they are. 404 `NOT_FOUND`.',
          parameters: { id: EX.newsId },
          request: { releaseDate: '2026-12-01T09:00:00Z' },
          response: { ...stored, releaseDate: '2026-12-01T09:00:00.000Z', scheduled: true },
        },
      }),
    },
    async (request) =>
      cache.of(request.game).afterWrite(updateNews(request.db, request.params.id, request.body, app.clock.now())),
  )

  app.delete(
    '/news/:id',
    {
      schema: route.admin({
        summary: 'Delete a news item',
        params: NewsIdParamsSchema,
        response: { 200: NewsDeletedSchema },
        errors: [404],
        docs: {
          description: 'Deletes a news item. 404 `NOT_FOUND`.',
          parameters: { id: EX.newsId },
          response: { id: EX.newsId, deleted: true },
        },
      }),
    },
    async (request) => {
      await cache.of(request.game).afterWrite(deleteNews(request.db, request.params.id))
      return { id: request.params.id, deleted: true as const }
    },
  )
}

export default newsAdmin
