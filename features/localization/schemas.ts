import { Type, type Static } from '@sinclair/typebox'
import { AdminListQuerySchema, OptionalString, TimestampSchema } from '../../platform/schemas/common.js'
import { CONFIG_KEY_PATTERN, NotModifiedSchema } from '../remote-config/schemas.js'

/** Characters per translated value. */
export const TRANSLATION_MAX = 16_384
export const BULK_MAX_KEYS = 5000

export { NotModifiedSchema }

export const LocalizationKeySchema = Type.String({
  pattern: CONFIG_KEY_PATTERN,
  description:
    'Letters, digits, `.`, `_`, `-`; 1–128 characters, case-sensitive; `all`, `filter` and `languages` are reserved',
})
export const LanguageTagSchema = Type.String({
  minLength: 1,
  maxLength: 35,
  description: 'BCP 47 language tag (`en`, `pt-BR`, `zh-Hant-TW`), matched case-insensitively',
})
export const TranslationSchema = Type.String({ maxLength: TRANSLATION_MAX, description: 'At most 16,384 characters' })

export const LangQuerySchema = Type.Object({
  lang: OptionalString({ maxLength: 35, description: 'BCP 47 tag; absent or "" = the default language' }),
})

export const LocalizationKeyParamsSchema = Type.Object({ key: LocalizationKeySchema })

export const LocalizationResponseSchema = Type.Object({
  localizationKey: Type.String(),
  key: Type.String(),
  language: Type.String({ description: 'The requested language (canonical form)' }),
  value: Type.Union([Type.String(), Type.Null()]),
  found: Type.Boolean(),
  resolvedLang: Type.Union([Type.String(), Type.Null()], { description: 'The language whose value was used' }),
})
export type LocalizationResponse = Static<typeof LocalizationResponseSchema>

export const TranslationMapSchema = Type.Record(Type.String(), Type.String())

export const AllLocalizationsResponseSchema = Type.Object({
  language: Type.String(),
  translations: TranslationMapSchema,
  total: Type.Integer(),
})

export const LanguagesResponseSchema = Type.Object({
  languages: Type.Array(Type.String()),
  total: Type.Integer(),
  defaultLanguage: Type.String(),
})

// ---- admin ----------------------------------------------------------------------------------

export const LangParamsSchema = Type.Object({ lang: LanguageTagSchema })
export const LangKeyParamsSchema = Type.Object({ lang: LanguageTagSchema, key: LocalizationKeySchema })

export const BulkTranslationsBodySchema = Type.Object({
  translations: Type.Record(Type.String(), TranslationSchema, {
    propertyNames: { pattern: CONFIG_KEY_PATTERN },
    maxProperties: BULK_MAX_KEYS,
    description: `key → value, at most ${BULK_MAX_KEYS} keys; upserted in one transaction (all or nothing); keys not named are kept`,
  }),
})

export const BulkTranslationsResponseSchema = Type.Object({
  language: Type.String(),
  upserted: Type.Integer(),
  translations: TranslationMapSchema,
})

export const PutTranslationBodySchema = Type.Object({ value: TranslationSchema })

export const AdminTranslationSchema = Type.Object({
  language: Type.String(),
  key: Type.String(),
  value: Type.String(),
  updatedAt: TimestampSchema,
})
export type AdminTranslation = Static<typeof AdminTranslationSchema>

export const TranslationDeletedSchema = Type.Object({
  language: Type.String(),
  key: Type.String(),
  deleted: Type.Literal(true),
})

export const LanguageDeletedSchema = Type.Object({
  language: Type.String(),
  deleted: Type.Integer({ description: 'Values removed' }),
})

export const AdminTranslationListQuerySchema = Type.Composite([
  AdminListQuerySchema,
  Type.Object({
    query: Type.Optional(
      Type.String({ minLength: 1, maxLength: 128, description: 'Only keys containing this text (case-sensitive)' }),
    ),
  }),
])

export const TranslationRowSchema = Type.Object({
  key: Type.String(),
  values: Type.Record(Type.String(), Type.String(), {
    description: 'language → value, for the languages that have one for this key',
  }),
})
export const TranslationGridSchema = Type.Object({
  items: Type.Array(TranslationRowSchema, { description: 'One row per key, keys in code-point order' }),
  languages: Type.Array(Type.String(), { description: 'Every language with at least one value, sorted' }),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
})
export type TranslationGrid = Static<typeof TranslationGridSchema>
