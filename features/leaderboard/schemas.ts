import { Type, type Static } from '@sinclair/typebox'
import {
  DisplayNameSchema,
  Nullable,
  OptionalString,
  TimestampSchema,
  UuidSchema,
  StringEnum,
} from '../../platform/schemas/common.js'
import { PublicProfileSchema } from '../player-profile/schemas.js'

export const MAX_SCORE = Number.MAX_SAFE_INTEGER
export const BOARD_KEY_PATTERN = '^[A-Za-z0-9 ._-]{1,64}$'
export const BoardKeySchema = Type.String({
  pattern: BOARD_KEY_PATTERN,
  description: 'Board key (URL-encoded in paths)',
})
export const ScoreSchema = Type.Integer({ minimum: -MAX_SCORE, maximum: MAX_SCORE })
export const SortOrderSchema = StringEnum(['desc', 'asc'] as const)
export const UpdateStrategySchema = StringEnum(['best', 'latest', 'increment'] as const)
export const ResetScheduleSchema = StringEnum(['none', 'daily', 'weekly', 'monthly'] as const)
export const PeriodSchema = StringEnum(['current', 'previous'] as const, {
  default: 'current',
  description: 'previous: the last finished period of a board with a reset schedule',
})

/** Bounds of the read sizes; a request outside them is clamped to them. */
export const TOP_LIMIT = { min: 1, max: 100 } as const
export const AROUND_RANGE = { min: 1, max: 50 } as const

export const BoardParamsSchema = Type.Object({ boardKey: BoardKeySchema })

export const MetadataSchema = Type.Union([Type.String(), Type.Object({}, { additionalProperties: true })], {
  description: 'String or object, at most 2 KiB serialized; shown to the operator only',
})

export const SubmitBodySchema = Type.Object({
  userId: UuidSchema,
  score: ScoreSchema,
  leaderboardKey: OptionalString({ pattern: BOARD_KEY_PATTERN }),
  metadata: Nullable(MetadataSchema),
})
export type SubmitBody = Static<typeof SubmitBodySchema>

export const SubmitResponseSchema = Type.Object({
  success: Type.Literal(true),
  leaderboardKey: Type.String(),
  score: Type.Integer(),
  submittedScore: Type.Integer(),
  improved: Type.Boolean(),
  position: Type.Integer(),
})

export const EntrySchema = Type.Object({
  position: Type.Integer(),
  userId: Type.String(),
  username: Type.String(),
  score: Type.Integer(),
  updatedAt: TimestampSchema,
  profile: PublicProfileSchema,
})
export type Entry = Static<typeof EntrySchema>

const SelfHostedKey = { leaderboardKey: OptionalString({ pattern: BOARD_KEY_PATTERN }) }

export const TopQuerySchema = Type.Object({
  // Clamped, not refused: clients written for the PHP server ask for more than 100.
  limit: Type.Integer({
    default: 10,
    description: `${TOP_LIMIT.min}–${TOP_LIMIT.max}; an integer out of range is clamped (500 reads 100, 0 reads 1)`,
  }),
  offset: Type.Integer({ minimum: 0, maximum: 10_000_000, default: 0 }),
  userId: Type.Optional(Type.String({ maxLength: 64, description: 'Sent by some SDKs; ignored' })),
  period: PeriodSchema,
  ...SelfHostedKey,
})
export type TopQuery = Static<typeof TopQuerySchema>
export const TopResponseSchema = Type.Object({
  leaderboardKey: Type.String(),
  entries: Type.Array(EntrySchema),
  total: Type.Integer(),
})
export type TopResponse = Static<typeof TopResponseSchema>

export const RankQuerySchema = Type.Object({ userId: UuidSchema, period: PeriodSchema, ...SelfHostedKey })
export const RankResponseSchema = Type.Object({
  leaderboardKey: Type.String(),
  position: Type.Integer(),
  userId: Type.String(),
  username: Type.String(),
  score: Type.Integer(),
  profile: PublicProfileSchema,
  total: Type.Integer(),
  ranked: Type.Boolean(),
})

export const AroundQuerySchema = Type.Object({
  userId: UuidSchema,
  range: Type.Integer({
    default: 10,
    description: `${AROUND_RANGE.min}–${AROUND_RANGE.max} entries either side; an integer out of range is clamped`,
  }),
  period: PeriodSchema,
  ...SelfHostedKey,
})
export const AroundResponseSchema = Type.Object({ leaderboardKey: Type.String(), entries: Type.Array(EntrySchema) })

export const BoardSummarySchema = Type.Object({
  id: Type.String(),
  key: Type.String(),
  boardKey: Type.String(),
  name: Type.String(),
  sortOrder: SortOrderSchema,
  updateStrategy: UpdateStrategySchema,
  resetSchedule: ResetScheduleSchema,
  validatedOnly: Type.Boolean(),
  isActive: Type.Boolean(),
  scoreCount: Type.Integer(),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
})
export type BoardSummary = Static<typeof BoardSummarySchema>
export const BoardListSchema = Type.Object({ boards: Type.Array(BoardSummarySchema), totalElements: Type.Integer() })

// ---- operator ---------------------------------------------------------------------------------

export const AdminBoardSchema = Type.Object({
  ...BoardSummarySchema.properties,
  minScore: Type.Integer(),
  maxScore: Type.Integer(),
})
export type AdminBoard = Static<typeof AdminBoardSchema>
export const AdminBoardListSchema = Type.Object({
  items: Type.Array(AdminBoardSchema),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
})

export const BoardPutBodySchema = Type.Object({
  name: Type.Optional(DisplayNameSchema({ minLength: 1, maxLength: 100 })),
  sortOrder: Type.Optional(SortOrderSchema),
  updateStrategy: Type.Optional(UpdateStrategySchema),
  minScore: Type.Optional(ScoreSchema),
  maxScore: Type.Optional(ScoreSchema),
  resetSchedule: Type.Optional(ResetScheduleSchema),
  validatedOnly: Type.Optional(Type.Boolean()),
  isActive: Type.Optional(Type.Boolean()),
})
export type BoardPutBody = Static<typeof BoardPutBodySchema>

export const AdminEntriesQuerySchema = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
  period: PeriodSchema,
})

export const AdminEntrySchema = Type.Object({
  position: Type.Union([Type.Integer(), Type.Null()], {
    description: 'null while the player is banned from the board',
  }),
  userId: Type.String(),
  username: Type.String(),
  score: Type.Integer(),
  metadata: Type.Union([MetadataSchema, Type.Null()]),
  hidden: Type.Boolean(),
  period: Type.String(),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
})
export type AdminEntry = Static<typeof AdminEntrySchema>
export const AdminEntryListSchema = Type.Object({
  items: Type.Array(AdminEntrySchema),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
})

export const BoardUserParamsSchema = Type.Object({ boardKey: BoardKeySchema, userId: UuidSchema })
export const EntryDeletedSchema = Type.Object({
  leaderboardKey: Type.String(),
  userId: Type.String(),
  deleted: Type.Literal(true),
})
export const BoardDeletedSchema = Type.Object({ leaderboardKey: Type.String(), deleted: Type.Literal(true) })

export const BoardBanBodySchema = Type.Object({ reason: OptionalString({ maxLength: 500 }) })
export const BoardBanSchema = Type.Object({
  leaderboardKey: Type.String(),
  userId: Type.String(),
  banned: Type.Boolean(),
  reason: Type.Union([Type.String(), Type.Null()]),
  bannedAt: Type.Union([TimestampSchema, Type.Null()]),
})
export type BoardBan = Static<typeof BoardBanSchema>

// ---- what the leaderboard announces --------------------------------------------------------------

/** `leaderboard.new_leader`: a score took first place on a board from someone else (or is its first). */
export const NewLeaderEventSchema = Type.Object({
  board: Type.String({ description: "The board's key" }),
  boardName: Type.String(),
  period: Type.String(),
  userId: Type.String(),
  playerName: Type.Union([Type.String(), Type.Null()]),
  score: Type.Number(),
})

// Loads the hub's module, which the maps below extend, in every program (the console's too).
import type {} from '../../platform/core/events.js'

declare module '../../platform/core/events.js' {
  interface RaisedEvents {
    'leaderboard.new_leader': Static<typeof NewLeaderEventSchema>
  }
  interface Notices {
    /** What one board shows (entries, counts, settings) changed from `fromPosition` down (1: anywhere). */
    boardChanged: [boardId: string, fromPosition: number]
    /** A score submit was stored (sent after its transaction committed). */
    scoreSubmitted: [boardKey: string, now: number]
    /**
     * The database's submit routine was found missing (`restored`: created again, or not, with why):
     * for the operator's log.
     */
    submitRoutineMissing: [restored: boolean, message: string]
  }
}

// ---- its part of a player's data export (features/users/export.ts) -------------------------------

/** The player's entries and board bans. */
export const LeaderboardExportSchema = {
  leaderboardEntries: Type.Array(
    Type.Object({
      leaderboardKey: Type.String(),
      period: Type.String(),
      score: Type.Number(),
      reachedAt: TimestampSchema,
      hidden: Type.Boolean({ description: 'Hidden while the player is banned from the board' }),
      metadata: Type.Unknown({ description: 'JSON as stored' }),
      createdAt: TimestampSchema,
    }),
  ),
  leaderboardBans: Type.Array(
    Type.Object({
      leaderboardKey: Type.String(),
      reason: Type.Union([Type.String(), Type.Null()]),
      bannedAt: TimestampSchema,
    }),
  ),
}
