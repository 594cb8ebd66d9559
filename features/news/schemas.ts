import { Type, type Static } from '@sinclair/typebox'
import { Nullable, OptionalString, TimestampSchema, UuidSchema } from '../../platform/schemas/common.js'

export const TITLE_MAX = 200
export const MESSAGE_MAX = 10_000

const NoControl = '^[^\\u0000-\\u001F\\u007F]*$'

/** Bounds of the app list's `limit`; a request outside them is clamped. */
export const NEWS_LIMIT = { min: 0, max: 100 } as const

export const NewsQuerySchema = Type.Object({
  limit: Type.Integer({
    default: 20,
    description: `${NEWS_LIMIT.min}–${NEWS_LIMIT.max}; 0 answers []; an integer out of range is clamped (500 reads 100)`,
  }),
  languageCode: OptionalString({
    maxLength: 35,
    description: 'BCP 47 tag, matched case-insensitively; absent or "" = all languages',
  }),
})

export const NewsItemSchema = Type.Object({
  id: Type.String(),
  title: Type.String(),
  message: Type.String(),
  releaseDate: TimestampSchema,
  languageCode: Type.String(),
})
export type NewsItem = Static<typeof NewsItemSchema>

export const NewsListSchema = Type.Array(NewsItemSchema, { description: 'Released items, newest first (a bare array)' })

// ---- admin ----------------------------------------------------------------------------------

const TitleSchema = Type.String({
  minLength: 1,
  maxLength: TITLE_MAX,
  pattern: NoControl,
  description: '1–200 characters, one line',
})
const MessageSchema = Type.String({ minLength: 1, maxLength: MESSAGE_MAX, description: '1–10,000 characters' })
const LanguageCodeSchema = Type.String({
  minLength: 1,
  maxLength: 35,
  description: 'BCP 47 tag (`en`, `pt-BR`), stored canonical',
})

export const CreateNewsBodySchema = Type.Object({
  title: TitleSchema,
  message: MessageSchema,
  languageCode: LanguageCodeSchema,
  releaseDate: Nullable(
    Type.String({
      format: 'date-time',
      description: 'ISO 8601; absent = now; in the future = scheduled (hidden until then)',
    }),
  ),
})

export const UpdateNewsBodySchema = Type.Object({
  title: Type.Optional(TitleSchema),
  message: Type.Optional(MessageSchema),
  languageCode: Type.Optional(LanguageCodeSchema),
  releaseDate: Nullable(Type.String({ format: 'date-time', description: 'ISO 8601; absent = unchanged' })),
})
export type UpdateNewsBody = Static<typeof UpdateNewsBodySchema>

export const AdminNewsSchema = Type.Object({
  id: Type.String(),
  title: Type.String(),
  message: Type.String(),
  languageCode: Type.String(),
  releaseDate: TimestampSchema,
  scheduled: Type.Boolean({ description: 'Release date still in the future: players do not see it yet' }),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
})
export type AdminNews = Static<typeof AdminNewsSchema>

export const AdminNewsListSchema = Type.Object({
  items: Type.Array(AdminNewsSchema),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
})

export const AdminNewsListQuerySchema = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
  languageCode: OptionalString({ maxLength: 35 }),
})

export const NewsIdParamsSchema = Type.Object({ id: UuidSchema })

export const NewsDeletedSchema = Type.Object({ id: Type.String(), deleted: Type.Literal(true) })
