// The operator's translations: the grid of keys × languages, a language's values in one
// transaction, one value, or a whole language removed.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import {
  AdminTranslationListQuerySchema,
  AdminTranslationSchema,
  BulkTranslationsBodySchema,
  BulkTranslationsResponseSchema,
  LangKeyParamsSchema,
  LangParamsSchema,
  LanguageDeletedSchema,
  PutTranslationBodySchema,
  TranslationDeletedSchema,
  TranslationGridSchema,
} from './schemas.js'
import type { ContentCache } from '../../platform/content/content-cache.js'
import type { PerGame } from '../../platform/games/registry.js'
import {
  deleteLanguage,
  deleteTranslation,
  listTranslationKeys,
  putTranslation,
  upsertTranslations,
  type LocalizationView,
} from './service.js'
import { routesOf } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'
import { EX } from '../../platform/openapi/examples.js'

const localizationAdmin: FastifyPluginAsyncTypebox<{ cache: PerGame<ContentCache<LocalizationView>> }> = async (
  app,
  { cache },
) => {
  const route = routesOf(manifest)
  app.get(
    '/localization',
    {
      schema: route.admin({
        summary: 'Every key with its value in each language, a page of keys at a time (the console grid)',
        querystring: AdminTranslationListQuerySchema,
        response: { 200: TranslationGridSchema },
        docs: {
          description:
            'The translations as a grid: a page of keys (code-point order; `limit` 1–100, default 50; `cursor` from the ' +
            "previous page) with each key's value in every language that has one, and `languages`, every language with " +
            'at least one value. `query` keeps the keys containing that text (case-sensitive). A cursor this server did ' +
            'not issue is 400.',
          parameters: { limit: 50, query: 'menu.' },
          response: {
            items: [
              { key: 'menu.play', values: { de: 'Spielen', en: 'Play' } },
              { key: 'menu.quit', values: { en: 'Quit' } },
            ],
            languages: ['de', 'en'],
            nextCursor: null,
          },
        },
      }),
    },
    async (request) => listTranslationKeys(request.db, request.query),
  )

  app.put(
    '/localization/:lang',
    {
      schema: route.admin({
        summary: "Create or replace many of a language's values in one transaction (all or nothing)",
        params: LangParamsSchema,
        body: BulkTranslationsBodySchema,
        response: { 200: BulkTranslationsResponseSchema },
        errors: [413],
        docs: {
          description:
            "Creates or replaces many of a language's values in one transaction, all or nothing: `translations` maps keys " +
            '(letters, digits, `.`, `_`, `-`; 1–128) to values (≤ 16,384 characters), at most 5000 keys; keys not named are ' +
            'kept. A bad key or value is 400 and nothing changes; 413 for a body over the route limit.',
          parameters: { lang: 'de' },
          request: { translations: { 'menu.play': 'Spielen', 'menu.quit': 'Beenden' } },
          response: { language: 'de', upserted: 2, translations: { 'menu.play': 'Spielen', 'menu.quit': 'Beenden' } },
        },
      }),
    },
    async (request) =>
      cache
        .of(request.game)
        .afterWrite(upsertTranslations(request.db, request.params.lang, request.body.translations, app.clock.now())),
  )

  app.put(
    '/localization/:lang/:key',
    {
      schema: route.admin({
        summary: 'Create or replace one value',
        params: LangKeyParamsSchema,
        body: PutTranslationBodySchema,
        response: { 200: AdminTranslationSchema },
        errors: [409],
        docs: {
          description:
            'Creates or replaces one value (≤ 16,384 characters). 409 `CONFLICT` when the value was deleted while it was being written: retry.',
          parameters: { lang: 'de', key: 'menu.play' },
          request: { value: 'Spielen' },
          response: { language: 'de', key: 'menu.play', value: 'Spielen', updatedAt: EX.now },
        },
      }),
    },
    async (request) =>
      cache
        .of(request.game)
        .afterWrite(
          putTranslation(request.db, request.params.lang, request.params.key, request.body.value, app.clock.now()),
        ),
  )

  app.delete(
    '/localization/:lang/:key',
    {
      schema: route.admin({
        summary: 'Delete one value',
        params: LangKeyParamsSchema,
        response: { 200: TranslationDeletedSchema },
        errors: [404],
        docs: {
          description: 'Deletes one value. 404 `NOT_FOUND`.',
          parameters: { lang: 'de', key: 'menu.play' },
          response: { language: 'de', key: 'menu.play', deleted: true },
        },
      }),
    },
    async (request) =>
      cache.of(request.game).afterWrite(deleteTranslation(request.db, request.params.lang, request.params.key)),
  )

  app.delete(
    '/localization/:lang',
    {
      schema: route.admin({
        summary: 'Delete every value of a language',
        params: LangParamsSchema,
        response: { 200: LanguageDeletedSchema },
        errors: [404],
        docs: {
          description:
            'Deletes every value of a language; `deleted` counts them. 404 `NOT_FOUND` when the language has none.',
          parameters: { lang: 'de' },
          response: { language: 'de', deleted: 2 },
        },
      }),
    },
    async (request) => cache.of(request.game).afterWrite(deleteLanguage(request.db, request.params.lang)),
  )
}

export default localizationAdmin
