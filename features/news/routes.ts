// The app routes of news: what the feature guarantees is in index.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { routesOf } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'
import { NEWS_EXAMPLE } from './docs.js'
import { NEWS_LIMIT, NewsListSchema, NewsQuerySchema } from './schemas.js'
import type { ContentCache } from '../../platform/content/content-cache.js'
import type { PerGame } from '../../platform/games/registry.js'
import { clamp } from '../../platform/http/pagination.js'
import { releasedNews, type NewsView } from './service.js'

const news: FastifyPluginAsyncTypebox<{ cache: PerGame<ContentCache<NewsView>> }> = async (app, { cache }) => {
  const route = routesOf(manifest)
  app.get(
    '/news',
    {
      schema: route.app({
        summary: 'Released news, newest first (a bare array)',
        querystring: NewsQuerySchema,
        response: { 200: NewsListSchema },
        docs: {
          description:
            'Released news, newest first, as a bare JSON array (compat): only items whose release date has passed. `limit` ' +
            '0–100 (default 20; 0 answers `[]`; an integer out of range is clamped, a non-integer is 400); `languageCode` ' +
            'filters (matched case-insensitively; absent or `""`: all languages).',
          parameters: { limit: 5, languageCode: 'en' },
          response: [NEWS_EXAMPLE],
        },
      }),
    },
    async (request) =>
      releasedNews(
        await cache.of(request.game).get(),
        { ...request.query, limit: clamp(request.query.limit, NEWS_LIMIT) },
        app.clock.now(),
      ),
  )
}

export default news
