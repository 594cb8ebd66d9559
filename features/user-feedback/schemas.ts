import { Type, type Static } from '@sinclair/typebox'
import {
  AdminListQuerySchema,
  OptionalString,
  TimeRangeQuery,
  TimestampSchema,
  UUID_OPTIONS,
  UuidSchema,
} from '../../platform/schemas/common.js'

export const DEFAULT_CATEGORY = 'GENERAL'

const NoControl = '^[^\\u0000-\\u001F\\u007F]*$'

export const FeedbackBodySchema = Type.Object({
  userId: OptionalString({
    ...UUID_OPTIONS,
    description: 'The player, when signed in (then user-scoped); absent or "" = anonymous',
  }),
  title: Type.String({ minLength: 1, maxLength: 100 }),
  message: Type.String({ minLength: 1, maxLength: 2048 }),
  category: OptionalString({
    maxLength: 32,
    pattern: NoControl,
    description: 'BUG, FEATURE, GENERAL or another label (≤ 32 characters); absent = GENERAL',
  }),
  email: OptionalString({
    maxLength: 254,
    pattern: '^[^\\s@]+@[^\\s@]+$',
    description: 'A contact address (checked lightly)',
  }),
  deviceInfo: OptionalString({ maxLength: 500 }),
})
export type FeedbackBody = Static<typeof FeedbackBodySchema>

export const FeedbackOkSchema = Type.Literal('ok', { description: 'compat: the JSON string "ok"' })

// ---- admin ----------------------------------------------------------------------------------

export const FeedbackListQuerySchema = Type.Composite([
  AdminListQuerySchema,
  Type.Object({
    userId: Type.Optional(UuidSchema),
    category: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
    ...TimeRangeQuery,
  }),
])
export type FeedbackListQuery = Static<typeof FeedbackListQuerySchema>

export const AdminFeedbackSchema = Type.Object({
  id: Type.String(),
  userId: Type.Union([Type.String(), Type.Null()], { description: 'null: anonymous' }),
  playerName: Type.Union([Type.String(), Type.Null()], { description: "The player's username; null: anonymous" }),
  title: Type.String(),
  message: Type.String(),
  category: Type.String(),
  email: Type.Union([Type.String(), Type.Null()]),
  deviceInfo: Type.Union([Type.String(), Type.Null()]),
  createdAt: TimestampSchema,
})
export type AdminFeedback = Static<typeof AdminFeedbackSchema>

export const AdminFeedbackListSchema = Type.Object({
  items: Type.Array(AdminFeedbackSchema),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
})

// ---- what user feedback announces ----------------------------------------------------------------

/** `feedback.submitted`: a player filed feedback (its message cut at 1000 characters). */
export const FeedbackSubmittedEventSchema = Type.Object({
  feedbackId: Type.String(),
  userId: Type.Union([Type.String(), Type.Null()]),
  playerName: Type.Union([Type.String(), Type.Null()]),
  category: Type.String(),
  title: Type.String(),
  message: Type.String(),
})

// Loads the hub's module, which the maps below extend, in every program (the console's too).
import type {} from '../../platform/core/events.js'

declare module '../../platform/core/events.js' {
  interface RaisedEvents {
    'feedback.submitted': Static<typeof FeedbackSubmittedEventSchema>
  }
}

// ---- its part of a player's data export (features/users/export.ts) -------------------------------

/** The feedback the player filed. */
export const FeedbackExportSchema = {
  feedback: Type.Array(
    Type.Object({
      id: Type.String(),
      title: Type.String(),
      message: Type.String(),
      category: Type.String(),
      email: Type.Union([Type.String(), Type.Null()]),
      deviceInfo: Type.Union([Type.String(), Type.Null()]),
      createdAt: TimestampSchema,
    }),
  ),
}
