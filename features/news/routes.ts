// The app routes of news: what the feature guarantees is in index.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../platform/schemas/common.js'
import { NEWS_LIMIT, NewsListSchema, NewsQuerySchema } from './schemas.js'
import type { ContentCache } from '../../platform/content/content-cache.js'
import { clamp } from '../../platform/http/pagination.js'
import { releasedNews, type NewsView } from './service.js'

const news: FastifyPluginAsyncTypebox<{ cache: ContentCache<NewsView> }> = async (app, { cache }) => {
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
      releasedNews(
        await cache.get(),
        { ...request.query, limit: clamp(request.query.limit, NEWS_LIMIT) },
        app.clock.now(),
      ),
  )
}

export default news
