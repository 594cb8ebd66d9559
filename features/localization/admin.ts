// The operator's translations: the grid of keys × languages, a language's values in one
// transaction, one value, or a whole language removed.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../platform/schemas/common.js'
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
import {
  deleteLanguage,
  deleteTranslation,
  listTranslationKeys,
  putTranslation,
  upsertTranslations,
  type LocalizationView,
} from './service.js'

const tags = ['Admin', 'Localization']
const security = [{ adminKey: [] }]

const localizationAdmin: FastifyPluginAsyncTypebox<{ cache: ContentCache<LocalizationView> }> = async (
  app,
  { cache },
) => {
  app.get(
    '/localization',
    {
      schema: {
        tags,
        security,
        summary: 'Every key with its value in each language, a page of keys at a time (the console grid)',
        querystring: AdminTranslationListQuerySchema,
        response: { 200: TranslationGridSchema, ...errors(400, 401, 429) },
      },
    },
    async (request) => listTranslationKeys(app.db, request.query),
  )

  app.put(
    '/localization/:lang',
    {
      schema: {
        tags,
        security,
        summary: "Create or replace many of a language's values in one transaction (all or nothing)",
        params: LangParamsSchema,
        body: BulkTranslationsBodySchema,
        response: { 200: BulkTranslationsResponseSchema, ...errors(400, 401, 413, 429) },
      },
    },
    async (request) =>
      cache.afterWrite(upsertTranslations(app.db, request.params.lang, request.body.translations, app.clock.now())),
  )

  app.put(
    '/localization/:lang/:key',
    {
      schema: {
        tags,
        security,
        summary: 'Create or replace one value',
        params: LangKeyParamsSchema,
        body: PutTranslationBodySchema,
        response: { 200: AdminTranslationSchema, ...errors(400, 401, 409, 429) },
      },
    },
    async (request) =>
      cache.afterWrite(
        putTranslation(app.db, request.params.lang, request.params.key, request.body.value, app.clock.now()),
      ),
  )

  app.delete(
    '/localization/:lang/:key',
    {
      schema: {
        tags,
        security,
        summary: 'Delete one value',
        params: LangKeyParamsSchema,
        response: { 200: TranslationDeletedSchema, ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => cache.afterWrite(deleteTranslation(app.db, request.params.lang, request.params.key)),
  )

  app.delete(
    '/localization/:lang',
    {
      schema: {
        tags,
        security,
        summary: 'Delete every value of a language',
        params: LangParamsSchema,
        response: { 200: LanguageDeletedSchema, ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => cache.afterWrite(deleteLanguage(app.db, request.params.lang)),
  )
}

export default localizationAdmin
