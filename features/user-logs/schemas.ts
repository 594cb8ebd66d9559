import { Type, type Static } from '@sinclair/typebox'
import {
  AdminListQuerySchema,
  OptionalString,
  StringEnum,
  TimeRangeQuery,
  TimestampSchema,
  UuidSchema,
} from '../../platform/schemas/common.js'

export const LOG_TYPES = ['INFO', 'WARN', 'ERROR'] as const

export const UserLogBodySchema = Type.Object({
  userId: UuidSchema,
  message: Type.String({ minLength: 1, maxLength: 1000 }),
  type: StringEnum(LOG_TYPES),
  errorCode: OptionalString({ maxLength: 50 }),
})
export type UserLogBody = Static<typeof UserLogBodySchema>

export const UserLogCreatedSchema = Type.Object({ id: Type.String(), createdAt: TimestampSchema })

// ---- admin ----------------------------------------------------------------------------------

export const UserLogListQuerySchema = Type.Composite([
  AdminListQuerySchema,
  Type.Object({
    userId: Type.Optional(UuidSchema),
    type: Type.Optional(StringEnum(LOG_TYPES)),
    ...TimeRangeQuery,
  }),
])
export type UserLogListQuery = Static<typeof UserLogListQuerySchema>

export const AdminUserLogSchema = Type.Object({
  id: Type.String(),
  userId: Type.String(),
  message: Type.String(),
  type: Type.String(),
  errorCode: Type.Union([Type.String(), Type.Null()]),
  createdAt: TimestampSchema,
})
export type AdminUserLog = Static<typeof AdminUserLogSchema>

export const AdminUserLogListSchema = Type.Object({
  items: Type.Array(AdminUserLogSchema),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
})

// ---- its part of a player's data export (features/users/export.ts) -------------------------------

/** The player's log lines. */
export const LogsExportSchema = {
  logs: Type.Array(
    Type.Object({
      id: Type.String(),
      message: Type.String(),
      type: Type.String(),
      errorCode: Type.Union([Type.String(), Type.Null()]),
      createdAt: TimestampSchema,
    }),
  ),
}
