import { Type, type TSchema, type Static } from '@sinclair/typebox'

export const UuidSchema = Type.String({ format: 'uuid', description: 'UUID' })
export const TimestampSchema = Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds' })

/** One of a fixed set of strings; a plain JSON Schema `enum`, so errors list the allowed values. */
export const StringEnum = <const T extends readonly string[]>(values: T, options: { description?: string; default?: T[number] } = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options })

/** An optional field the SDKs may also send as `null`. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]))

/** An optional string the SDKs may send as `null` or `""` (both count as absent, API.md §1). */
export const OptionalString = (options: Parameters<typeof Type.String>[0] = {}) =>
  Type.Optional(Type.Union([Type.String(options), Type.Literal(''), Type.Null()]))

/** `undefined` for the absent forms (`undefined`, `null`, `""`) of an optional field. */
export function present<T>(value: T | null | undefined | ''): T | undefined {
  return value === null || value === '' || value === undefined ? undefined : (value as T)
}

/** One name for a person: 1–50 characters after trimming, no control characters. */
export const NameSchema = Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\u0000-\\u001F\\u007F]*$' })

export const ErrorSchema = Type.Object(
  {
    statusCode: Type.Integer(),
    error: Type.String(),
    code: Type.String(),
    message: Type.String(),
    details: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
  },
  { $id: 'Error', additionalProperties: true, description: 'Every error (API.md §1.1); some add context fields' },
)
export type ErrorBody = Static<typeof ErrorSchema>

/** Response entries for the error statuses a route can produce. */
export function errors(...statuses: number[]): Record<number, typeof ErrorSchema> {
  return Object.fromEntries(statuses.map((status) => [status, ErrorSchema]))
}

export const AdminListQuerySchema = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
})

export const SuccessSchema = Type.Object({ success: Type.Boolean() })
