// News (API.md §5.7): released items, newest first, as a bare array. Served from an in-process copy
// filtered by the clock on every request, so a scheduled item appears on time without any write; an
// admin write shows at once on its own instance and within CONTENT_CHECK_INTERVAL_MS (1 s) elsewhere.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../schemas/common.js'
import { NEWS_LIMIT, NewsListSchema, NewsQuerySchema } from '../../schemas/news.js'
import { contentCache } from '../core/content-cache.js'
import { clamp } from '../core/pagination.js'
import { loadNews, releasedNews } from './service.js'

const news: FastifyPluginAsyncTypebox = async (app) => {
  const cache = contentCache(app, 'news', loadNews)

  app.get(
    '/news',
    {
      schema: {
        tags: ['News'],
        summary: 'Released news, newest first (a bare array)',
        querystring: NewsQuerySchema,
        response: { 200: NewsListSchema, ...errors(400, 401, 429) },
      },
    },
    async (request) =>
      releasedNews(await cache.get(), { ...request.query, limit: clamp(request.query.limit, NEWS_LIMIT) }, app.clock.now()),
  )
}

export default news
