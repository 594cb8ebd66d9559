import { Type, type TSchema, type Static } from '@sinclair/typebox'
import type { FuncKeywordDefinition } from 'ajv'

/**
 * UUIDs match case-insensitively and are answered in lower case, on both databases alike:
 * SQLite compares text byte by byte while MySQL's collation ignores case, so an upper-case id found
 * the user on one and not the other, and was stored as sent. The validators rewrite every input the
 * schema marks with this keyword to lower case, once, before any route sees it. An `x-` name, because
 * the keyword also lands in the OpenAPI document, where only `x-` extensions may be added.
 */
export const LOWERCASE_UUID = 'x-lowercase-uuid'
/** A UUID's text, any case: the one pattern every check of an id uses. */
export const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** A UUID in any letter case (the text form the schemas accept). */
export const isUuidText = (text: string) => UUID_TEXT.test(text)

/** Ajv keyword behind UUID_OPTIONS: ids are stored lower-case, so an upper-case one would never match a row. */
export const lowercaseUuidKeyword: FuncKeywordDefinition = {
  keyword: LOWERCASE_UUID,
  type: 'string',
  schemaType: 'boolean',
  modifying: true,
  errors: false,
  // Only a real UUID is rewritten: in a union the same text may be meant for another branch.
  validate: (enabled: boolean, data: string, _parentSchema, context) => {
    if (enabled && context?.parentData != null && UUID_TEXT.test(data)) {
      context.parentData[context.parentDataProperty] = data.toLowerCase()
    }
    return true
  },
}

/** A UUID option set for string schemas that are not plain UuidSchema (e.g. an optional one). */
export const UUID_OPTIONS = { format: 'uuid', [LOWERCASE_UUID]: true } as const

/** An id as the API takes it: one schema so every route refuses a malformed id the same way. */
export const UuidSchema = Type.String({ ...UUID_OPTIONS, description: 'UUID' })
/** Every time the API answers with, in the one form the SDKs parse. */
export const TimestampSchema = Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds' })

/** One of a fixed set of strings; a plain JSON Schema `enum`, so errors list the allowed values. */
export const StringEnum = <const T extends readonly string[]>(
  values: T,
  options: { description?: string; default?: T[number] } = {},
) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options })

/** An optional field the SDKs may also send as `null`. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]))

/** An optional string the SDKs may send as `null` or `""` (both count as absent). */
export const OptionalString = (options: Parameters<typeof Type.String>[0] = {}) =>
  Type.Optional(Type.Union([Type.String(options), Type.Literal(''), Type.Null()]))

/** `undefined` for the absent forms (`undefined`, `null`, `""`) of an optional field. */
export function present<T>(value: T | null | undefined | ''): T | undefined {
  return value === null || value === '' || value === undefined ? undefined : (value as T)
}

/**
 * What no name shown to other players may hold: C0, DEL and C1 controls (a name is one line), the
 * line and paragraph separators, and the bidirectional controls (U+202A–U+202E, U+2066–U+2069, the
 * marks U+200E, U+200F, U+061C), which reorder what follows them: "U+202E evil" reads "live" on a board.
 * Nor what shows nothing, which makes a name look empty or like another player's: every format
 * character (Unicode category Cf: U+200B zero width space, U+FEFF, U+00AD soft hyphen, U+2060, the
 * tags U+E0000–U+E007F, …) and the default-ignorable or blank letters used as blank names (U+034F,
 * the Hangul fillers U+115F, U+1160, U+3164, U+FFA0, U+17B4, U+17B5, and the blank Braille pattern
 * U+2800). A zero width joiner (Cf) stays allowed between two emoji, where it makes one (👩‍🚀): it
 * shows there. The zero width non-joiner goes with the rest: shaping without it stays readable.
 */
const NAME_FORBIDDEN_CLASS =
  '\\u0000-\\u001F\\u007F-\\u009F\\u061C\\u200E\\u200F\\u2028-\\u202E\\u2066-\\u2069' +
  '\\p{Cf}\\u034F\\u115F\\u1160\\u17B4\\u17B5\\u2800\\u3164\\uFFA0\\u{E0000}-\\u{E007F}'
/** A joiner inside an emoji sequence: after an emoji (its presentation selector or skin tone) and before one. */
const EMOJI_JOINER =
  '(?<=\\p{Extended_Pictographic}\\uFE0F?[\\u{1F3FB}-\\u{1F3FF}]?)\\u200D(?=\\p{Extended_Pictographic})'
/** The rule as a JSON Schema pattern (Ajv compiles patterns with the `u` flag). */
export const NAME_PATTERN = `^(?:${EMOJI_JOINER}|[^${NAME_FORBIDDEN_CLASS}])*$`
const NAME_FORBIDDEN = new RegExp(`(?!${EMOJI_JOINER})[${NAME_FORBIDDEN_CLASS}]`, 'gu')

/** Whether a name breaks the rule above (for names that do not come through a schema). */
export const hasForbiddenNameCharacter = (name: string) => name.search(NAME_FORBIDDEN) !== -1
/** A name from elsewhere (a provider's profile) with what the rule forbids taken out. */
export const withoutForbiddenNameCharacters = (name: string) => name.replace(NAME_FORBIDDEN, '')

/**
 * Every name a player shows others (usernames, display names, profile and board names): one line, no
 * control or bidirectional override characters. The one definition of that rule for schemas.
 */
export const DisplayNameSchema = (options: Parameters<typeof Type.String>[0] = {}) =>
  Type.String({ ...options, pattern: NAME_PATTERN })

/**
 * One name for a person as sent: up to 200 characters, under the rule above. The limit that counts,
 * 1–50 characters after trimming, is checked by the users service (`normalizeName`).
 */
export const NameSchema = DisplayNameSchema({ minLength: 1, maxLength: 200 })

/** The house error body (contract §2): one shape every route's error responses point to. */
export const ErrorSchema = Type.Object(
  {
    statusCode: Type.Integer(),
    error: Type.String(),
    code: Type.String(),
    message: Type.String(),
    details: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
  },
  { $id: 'Error', additionalProperties: true, description: 'Every error; some add context fields' },
)
/** The error body as services and the error handler build it. */
export type ErrorBody = Static<typeof ErrorSchema>

/** Response entries for the error statuses a route can produce. */
export function errors(...statuses: number[]): Record<number, typeof ErrorSchema> {
  return Object.fromEntries(statuses.map((status) => [status, ErrorSchema]))
}

/** Every admin list's page size and cursor, so all lists page alike (platform/http/pagination.ts). */
export const AdminListQuerySchema = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
})

/** An admin list's time range [from, to) on when a row was made (platform/http/pagination.ts recordsPage). */
export const TimeRangeQuery = {
  from: Type.Optional(Type.String({ format: 'date-time', description: 'ISO 8601, inclusive' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'ISO 8601, exclusive' })),
}

/** The `{ success }` answer the PHP server gave to writes that return nothing else (compat). */
export const SuccessSchema = Type.Object({ success: Type.Boolean() })
