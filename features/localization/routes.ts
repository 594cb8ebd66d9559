// The app routes of localization: what the feature guarantees is in index.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import {
  AllLocalizationsResponseSchema,
  LangQuerySchema,
  LanguagesResponseSchema,
  LocalizationKeyParamsSchema,
  LocalizationResponseSchema,
  NotModifiedSchema,
} from './schemas.js'
import type { ContentCache } from '../../platform/content/content-cache.js'
import type { PerGame } from '../../platform/games/registry.js'
import { answeredNotModified } from '../../platform/http/etag.js'
import { allTranslationsJson, requestedLanguage, translate, type LocalizationView } from './service.js'
import { routesOf } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'
import * as examples from './docs.js'

const localization: FastifyPluginAsyncTypebox<{
  cache: PerGame<ContentCache<LocalizationView>>
  defaultLanguage: string
}> = async (app, { cache, defaultLanguage }) => {
  const route = routesOf(manifest)
  app.get(
    '/localization/languages',
    {
      schema: route.app({
        summary: 'Languages that have at least one value',
        response: { 200: LanguagesResponseSchema, 304: NotModifiedSchema },
        docs: {
          description: `The languages with at least one value (\`[]\` on an empty database) and the default language. ${examples.ETAG}`,
          response: { languages: ['de', 'en', 'pt-BR'], total: 3, defaultLanguage: 'en' },
        },
      }),
    },
    async (request, reply) => {
      const view = await cache.of(request.game).get()
      if (answeredNotModified(request, reply, view.etag)) return reply
      return { languages: view.languages, total: view.languages.length, defaultLanguage }
    },
  )

  app.get(
    '/localization/all',
    {
      schema: route.app({
        summary: 'Every value for a language, gaps filled along the fallback chain (ETag / If-None-Match)',
        querystring: LangQuerySchema,
        response: { 200: AllLocalizationsResponseSchema, 304: NotModifiedSchema },
        docs: {
          description: `Every value for a language as \`{ key: value }\`; default-language values fill the gaps. ${examples.LANG} ${examples.ETAG}`,
          parameters: { lang: 'de' },
          response: { language: 'de', translations: { 'menu.play': 'Spielen', 'menu.quit': 'Beenden' }, total: 2 },
        },
      }),
    },
    async (request, reply) => {
      const language = requestedLanguage(request.query.lang, defaultLanguage)
      const view = await cache.of(request.game).get()
      if (answeredNotModified(request, reply, view.etag)) return reply
      // Already JSON: Fastify sends a string with a JSON content type as it is.
      return reply.type('application/json; charset=utf-8').send(allTranslationsJson(view, language) as never)
    },
  )

  app.get(
    '/localization/:key',
    {
      schema: route.app({
        summary: 'One value, looked up along the fallback chain (ETag / If-None-Match)',
        params: LocalizationKeyParamsSchema,
        querystring: LangQuerySchema,
        response: { 200: LocalizationResponseSchema, 304: NotModifiedSchema },
        docs: {
          description:
            'One value, looked up in `lang` (`pt-BR`), then its base language (`pt`), then the default language; `resolvedLang` ' +
            'names the one used. Nothing found is not an error: `found: false`, `value: null`, `resolvedLang: null`. ' +
            '`localizationKey` and `language` (the requested language) are the compat names; `key` repeats `localizationKey`. ' +
            `Keys as in remote config (\`all\`, \`filter\` and \`languages\` are reserved). ${examples.LANG} ${examples.ETAG}`,
          parameters: { key: 'menu.play', lang: 'de-AT' },
          response: {
            localizationKey: 'menu.play',
            key: 'menu.play',
            language: 'de-AT',
            value: 'Spielen',
            found: true,
            resolvedLang: 'de',
          },
        },
      }),
    },
    async (request, reply) => {
      const language = requestedLanguage(request.query.lang, defaultLanguage)
      const view = await cache.of(request.game).get()
      if (answeredNotModified(request, reply, view.etag)) return reply
      return translate(view, request.params.key, language)
    },
  )
}

export default localization
