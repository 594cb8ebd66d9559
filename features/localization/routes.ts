// The app routes of localization: what the feature guarantees is in index.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../platform/schemas/common.js'
import {
  AllLocalizationsResponseSchema,
  LangQuerySchema,
  LanguagesResponseSchema,
  LocalizationKeyParamsSchema,
  LocalizationResponseSchema,
  NotModifiedSchema,
} from './schemas.js'
import type { ContentCache } from '../../platform/content/content-cache.js'
import { answeredNotModified } from '../../platform/http/etag.js'
import { allTranslationsJson, requestedLanguage, translate, type LocalizationView } from './service.js'

const tags = ['Localization']

const localization: FastifyPluginAsyncTypebox<{
  cache: ContentCache<LocalizationView>
  defaultLanguage: string
}> = async (app, { cache, defaultLanguage }) => {
  app.get(
    '/localization/languages',
    {
      schema: {
        tags,
        summary: 'Languages that have at least one value',
        response: { 200: LanguagesResponseSchema, 304: NotModifiedSchema, ...errors(401, 429) },
      },
    },
    async (request, reply) => {
      const view = await cache.get()
      if (answeredNotModified(request, reply, view.etag)) return reply
      return { languages: view.languages, total: view.languages.length, defaultLanguage }
    },
  )

  app.get(
    '/localization/all',
    {
      schema: {
        tags,
        summary: 'Every value for a language, gaps filled along the fallback chain (ETag / If-None-Match)',
        querystring: LangQuerySchema,
        response: { 200: AllLocalizationsResponseSchema, 304: NotModifiedSchema, ...errors(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const language = requestedLanguage(request.query.lang, defaultLanguage)
      const view = await cache.get()
      if (answeredNotModified(request, reply, view.etag)) return reply
      // Already JSON: Fastify sends a string with a JSON content type as it is.
      return reply.type('application/json; charset=utf-8').send(allTranslationsJson(view, language) as never)
    },
  )

  app.get(
    '/localization/:key',
    {
      schema: {
        tags,
        summary: 'One value, looked up along the fallback chain (ETag / If-None-Match)',
        params: LocalizationKeyParamsSchema,
        querystring: LangQuerySchema,
        response: { 200: LocalizationResponseSchema, 304: NotModifiedSchema, ...errors(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const language = requestedLanguage(request.query.lang, defaultLanguage)
      const view = await cache.get()
      if (answeredNotModified(request, reply, view.etag)) return reply
      return translate(view, request.params.key, language)
    },
  )
}

export default localization
