import { Type, type Static } from '@sinclair/typebox'
import { Nullable, StringEnum, TimestampSchema, UuidSchema } from '../../platform/schemas/common.js'

const VersionSchema = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })

/**
 * The JSON save. `userId` may instead come in the query string (the binary form sends it there),
 * so both are optional here and the user-scoped hook requires one of them.
 */
export const SaveBodySchema = Type.Object({
  userId: Type.Optional(UuidSchema),
  data: Nullable(Type.String({ description: 'The save, as text (stored as given, never parsed); wins over saveData' })),
  saveData: Nullable(Type.String({ description: 'compat: the same as data (the horizOn SDKs send this name)' })),
  expectedVersion: Nullable(
    Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'Save only if the stored version is this one (0: no save yet); otherwise 409 CONFLICT',
    }),
  ),
})
export type SaveBody = Static<typeof SaveBodySchema>

export const SaveQuerySchema = Type.Object({
  userId: Type.Optional(UuidSchema),
  expectedVersion: Type.Optional(VersionSchema),
})

/** The Unity SDK's conditional save sends the expected version as `If-Match: <n>`. */
export const SaveHeadersSchema = Type.Object({
  'if-match': Type.Optional(
    Type.String({ pattern: '^\\s*(W/)?"?[0-9]{1,15}"?\\s*$', description: 'The expected version, as expectedVersion' }),
  ),
})

export const SaveResponseSchema = Type.Object({
  success: Type.Boolean(),
  dataSizeBytes: Type.Integer({ description: 'UTF-8 bytes of a text save; bytes of a binary save' }),
  version: Type.Integer(),
  revision: Type.Integer({ description: 'The same as version (the Unity SDK reads this name)' }),
  updatedAt: TimestampSchema,
})
export type SaveResponse = Static<typeof SaveResponseSchema>

export const LoadBodySchema = Type.Object({ userId: UuidSchema })
export const LoadQuerySchema = Type.Object({ userId: UuidSchema })

export const LoadResponseSchema = Type.Object({
  found: Type.Boolean(),
  data: Type.Union([Type.String(), Type.Null()]),
  saveData: Type.Union([Type.String(), Type.Null()], { description: 'compat: the same value as data' }),
  encoding: Type.Optional(Type.Literal('base64', { description: 'Present when a binary save is read as JSON' })),
  version: Type.Optional(Type.Integer()),
  updatedAt: Type.Optional(TimestampSchema),
})
export type LoadResponse = Static<typeof LoadResponseSchema>

export const RawBytesSchema = Type.String({
  format: 'binary',
  description: 'The raw save bytes (a text save: its UTF-8 bytes)',
})

// ---- its part of a player's data export (features/users/export.ts) -------------------------------

/** The player's save, whole. */
export const CloudSaveExportSchema = {
  cloudSave: Type.Union([
    Type.Object({
      encoding: StringEnum(['utf8', 'base64'] as const, { description: 'base64 for a save stored as binary' }),
      data: Type.String(),
      sizeBytes: Type.Integer(),
      version: Type.Integer(),
      createdAt: TimestampSchema,
      updatedAt: TimestampSchema,
    }),
    Type.Null(),
  ]),
}
