import { Type, type Static } from '@sinclair/typebox'
import {
  LOWERCASE_UUID,
  Nullable,
  OptionalString,
  StringEnum,
  TimestampSchema,
  UuidSchema,
} from '../../platform/schemas/common.js'
import { BOARD_KEY_PATTERN, BoardKeySchema, MAX_SCORE, ScoreSchema } from '../leaderboard/schemas.js'

/** Rules of unbound runs live under this key. */
export const UNBOUND = '_unbound'
export const DEFAULT_TICKET_TTL_SECONDS = 7200
export const DEFAULT_EVIDENCE_MAX_BYTES = 32768
/**
 * The largest evidenceMaxBytes an operator may set. The routes that carry a log or an initial state
 * take a body of its base64 size, and parsing a JSON body costs event-loop time in proportion: at
 * 1 MiB (1.4 MB of base64) the worst spelling of such a body stays within the 20 ms every request is
 * held to (test/platform/http/hostile-bodies.test.ts), where 8 MiB cost 20-40 ms. An input log of a deterministic
 * game is a few KiB; 1 MiB leaves room for long sessions.
 */
export const EVIDENCE_MAX_BYTES_LIMIT = 1024 * 1024
export const MAX_EARNED = 64
export const VALUE_KEY_PATTERN = '^[a-z0-9][a-z0-9._-]{0,23}$'

const Nullish = <T extends Parameters<typeof Nullable>[0]>(schema: T) => Type.Union([schema, Type.Null()])
const NullableInt = Type.Union([Type.Integer(), Type.Null()])
const NullableNumber = Type.Union([Type.Number(), Type.Null()])

// ---- app routes -------------------------------------------------------------------------------

const ContextText = OptionalString({
  maxLength: 64,
  pattern: '^[\\x20-\\x7E]*$',
  description: 'At most 64 printable ASCII characters',
})

export const RunContextSchema = Type.Object({
  gameVersion: ContextText,
  contentVersion: ContextText,
  simulationVersion: ContextText,
  replayFormatVersion: ContextText,
  contentDigest: OptionalString({
    pattern: '^[0-9a-fA-F]{64}$',
    description: 'SHA-256 of the game content, 64 hex digits',
  }),
  initialState: OptionalString({ description: 'Standard base64; decoded at most evidenceMaxBytes' }),
})
export type RunContext = Static<typeof RunContextSchema>

export const StartRunBodySchema = Type.Object({
  userId: UuidSchema,
  leaderboardKey: OptionalString({ pattern: BOARD_KEY_PATTERN }),
  context: Nullable(RunContextSchema),
})
export type StartRunBody = Static<typeof StartRunBodySchema>

export const StartRunResponseSchema = Type.Object({
  runId: Type.String(),
  ticket: Type.String(),
  seed: Type.Integer(),
  leaderboardKey: Type.Union([Type.String(), Type.Null()]),
  issuedAt: TimestampSchema,
  expiresAt: TimestampSchema,
  expiresInSeconds: Type.Integer(),
})
export type StartRunResponse = Static<typeof StartRunResponseSchema>

export const EarnedSchema = Type.Object({
  key: Type.String({ minLength: 1, maxLength: 64 }),
  amount: Type.Integer({
    minimum: -MAX_SCORE,
    maximum: MAX_SCORE,
    description: 'Not 0: positive credits, negative spends',
  }),
})

export const SubmitBodySchema = Type.Object({
  userId: UuidSchema,
  ticket: Type.String({ minLength: 1, maxLength: 256 }),
  inputLogHash: Type.String({
    pattern: '^[0-9a-fA-F]{64}$',
    description: 'SHA-256 of the input log, 64 hex digits (any case)',
  }),
  score: ScoreSchema,
  stage: OptionalString({ maxLength: 64 }),
  leaderboardKey: OptionalString({ pattern: BOARD_KEY_PATTERN }),
  earned: Nullable(Type.Array(EarnedSchema, { maxItems: MAX_EARNED })),
})
export type SubmitBody = Static<typeof SubmitBodySchema>

export const ValueStateSchema = Type.Object({
  key: Type.String(),
  balance: Type.Integer(),
  earnedToday: Type.Integer(),
  dailyCap: NullableInt,
  requested: Type.Optional(Type.Integer()),
  credited: Type.Optional(Type.Integer()),
})
export type ValueState = Static<typeof ValueStateSchema>

export const PlayerStateSchema = Type.Object({
  userId: Type.String(),
  day: Type.String({ description: 'UTC date YYYY-MM-DD of earnedToday' }),
  values: Type.Array(ValueStateSchema),
})
export type PlayerState = Static<typeof PlayerStateSchema>

export const EvidenceRequestSchema = Type.Object({
  required: Type.Literal(true),
  runId: Type.String(),
  uploadBefore: TimestampSchema,
  maxBytes: Type.Integer(),
})

export const SubmitResultSchema = Type.Object({
  accepted: Type.Literal(true),
  runId: Type.String(),
  leaderboardKey: Type.Union([Type.String(), Type.Null()]),
  score: NullableInt,
  bestScore: NullableInt,
  isNewHighScore: Type.Boolean(),
  rank: NullableInt,
  durationSeconds: Type.Integer(),
  state: Nullish(PlayerStateSchema),
  evidence: Nullish(EvidenceRequestSchema),
  sus: Type.Boolean(),
})
export type SubmitResult = Static<typeof SubmitResultSchema>

export const StateQuerySchema = Type.Object({ userId: UuidSchema })

export const RunParamsSchema = Type.Object({ runId: UuidSchema })

/**
 * The evidence upload takes any run id: one that is not a UUID names no run, so it is answered like
 * an unknown run (404 EVIDENCE_NOT_REQUESTED), which the SDKs' own tests expect, not 400. A UUID is
 * still matched case-insensitively.
 */
export const EvidenceParamsSchema = Type.Object({
  runId: Type.String({
    minLength: 1,
    [LOWERCASE_UUID]: true,
    description: 'The run id (a UUID); any other text names no run: 404 EVIDENCE_NOT_REQUESTED',
  }),
})

export const EvidenceBodySchema = Type.Object({
  userId: UuidSchema,
  log: Type.String({ minLength: 1, description: 'The input log, standard base64' }),
})
export const EvidenceUploadedSchema = Type.Object({
  runId: Type.String(),
  status: Type.Literal('UPLOADED'),
  bytes: Type.Integer(),
})

// ---- operator ---------------------------------------------------------------------------------

const Count = (description?: string) =>
  Type.Optional(Nullish(Type.Integer({ minimum: 1, maximum: 1_000_000, description })))
const NonNegativeRate = Type.Optional(Nullish(Type.Number({ minimum: 0, maximum: MAX_SCORE })))

export const StageRuleSchema = Type.Object(
  { minScore: Type.Optional(Nullish(ScoreSchema)), maxScore: Type.Optional(Nullish(ScoreSchema)) },
  { additionalProperties: false },
)
export const StagesSchema = Type.Record(Type.String({ pattern: '^.{1,64}$' }), StageRuleSchema, {
  maxProperties: 200,
  description: '{ stageKey: { minScore?, maxScore? } }',
})

export const RulesParamsSchema = Type.Object({ boardKey: BoardKeySchema })

export const RulesBodySchema = Type.Object({
  minDurationSeconds: Type.Optional(Nullish(Type.Integer({ minimum: 0, maximum: 31_536_000 }))),
  minScore: Type.Optional(Nullish(ScoreSchema)),
  maxScore: Type.Optional(Nullish(ScoreSchema)),
  maxScorePerSecond: NonNegativeRate,
  stages: Type.Optional(Nullish(StagesSchema)),
  stageRequired: Type.Optional(Nullish(Type.Boolean())),
  ticketTtlSeconds: Type.Optional(Nullish(Type.Integer({ minimum: 1, maximum: 31_536_000 }))),
  maxRunsPerHour: Count('Runs a player may start per hour on this board'),
  maxOpenRuns: Count('Unexpired, unsubmitted runs a player may hold on this board'),
  maxAcceptedRunsPerDay: Count('Accepted runs per player and UTC day on this board'),
  susScore: Type.Optional(Nullish(ScoreSchema)),
  susScorePerSecond: NonNegativeRate,
  evidenceTopN: Count('Evidence is requested for accepted runs ranked this high'),
  evidenceMaxBytes: Type.Optional(Nullish(Type.Integer({ minimum: 1, maximum: EVIDENCE_MAX_BYTES_LIMIT }))),
})
export type RulesBody = Static<typeof RulesBodySchema>

export const RulesSchema = Type.Object({
  boardKey: Type.String(),
  minDurationSeconds: NullableInt,
  minScore: NullableInt,
  maxScore: NullableInt,
  maxScorePerSecond: NullableNumber,
  stages: Type.Record(Type.String(), Type.Object({ minScore: NullableInt, maxScore: NullableInt })),
  stageRequired: Type.Boolean(),
  ticketTtlSeconds: Type.Integer(),
  maxRunsPerHour: NullableInt,
  maxOpenRuns: NullableInt,
  maxAcceptedRunsPerDay: NullableInt,
  susScore: NullableInt,
  susScorePerSecond: NullableNumber,
  evidenceTopN: NullableInt,
  evidenceMaxBytes: Type.Integer(),
  createdAt: Type.Union([TimestampSchema, Type.Null()], { description: 'null: never set, the defaults apply' }),
  updatedAt: Type.Union([TimestampSchema, Type.Null()]),
})
export type Rules = Static<typeof RulesSchema>
export const RulesListSchema = Type.Object({
  items: Type.Array(RulesSchema),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
})

export const ValueParamsSchema = Type.Object({ key: Type.String({ pattern: VALUE_KEY_PATTERN }) })
export const ValueBodySchema = Type.Object({
  minPerRun: Type.Optional(Nullish(ScoreSchema)),
  maxPerRun: Type.Optional(Nullish(ScoreSchema)),
  dailyCap: Type.Optional(Nullish(Type.Integer({ minimum: 0, maximum: MAX_SCORE }))),
})
export type ValueBody = Static<typeof ValueBodySchema>
export const ValueDefinitionSchema = Type.Object({
  key: Type.String(),
  minPerRun: NullableInt,
  maxPerRun: NullableInt,
  dailyCap: NullableInt,
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
})
export type ValueDefinition = Static<typeof ValueDefinitionSchema>
export const ValueListSchema = Type.Object({
  items: Type.Array(ValueDefinitionSchema),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
})

export const AdjustParamsSchema = Type.Object({ userId: UuidSchema })
export const AdjustBodySchema = Type.Object({
  key: Type.String({ minLength: 1, maxLength: 64 }),
  amount: Type.Integer({ minimum: -MAX_SCORE, maximum: MAX_SCORE }),
  reason: OptionalString({ maxLength: 500 }),
})
export const AdjustmentSchema = Type.Object({
  adjustmentId: Type.String(),
  userId: Type.String(),
  key: Type.String(),
  amount: Type.Integer(),
  balance: Type.Integer({ description: 'The balance after the adjustment' }),
  reason: Type.Union([Type.String(), Type.Null()]),
  createdAt: TimestampSchema,
})
export type Adjustment = Static<typeof AdjustmentSchema>
export const AdjustmentListQuerySchema = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
  userId: Type.Optional(UuidSchema),
})
export const AdjustmentListSchema = Type.Object({
  items: Type.Array(AdjustmentSchema),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
})

export const RUN_OUTCOMES = ['OPEN', 'EXPIRED', 'ACCEPTED', 'REJECTED'] as const
export type RunListOutcome = (typeof RUN_OUTCOMES)[number]

export const RunListQuerySchema = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
  userId: Type.Optional(UuidSchema),
  outcome: Type.Optional(StringEnum(RUN_OUTCOMES)),
  sus: Type.Optional(Type.Boolean()),
})
export type RunListQuery = Static<typeof RunListQuerySchema>

const NullableString = Type.Union([Type.String(), Type.Null()])

export const AdminRunSchema = Type.Object({
  runId: Type.String(),
  userId: Type.String(),
  leaderboardKey: NullableString,
  seed: Type.Integer(),
  issuedAt: TimestampSchema,
  expiresAt: TimestampSchema,
  submittedAt: Type.Union([TimestampSchema, Type.Null()]),
  outcome: StringEnum(RUN_OUTCOMES),
  reason: NullableString,
  score: NullableInt,
  stage: NullableString,
  inputLogHash: NullableString,
  durationSeconds: NullableInt,
  durationMs: NullableInt,
  bestScore: NullableInt,
  rank: NullableInt,
  earned: Type.Union([
    Type.Array(Type.Object({ key: Type.String(), requested: Type.Integer(), credited: Type.Integer() })),
    Type.Null(),
  ]),
  sus: Type.Boolean(),
  susReasons: Type.Array(Type.String()),
  context: Type.Object({
    gameVersion: NullableString,
    contentVersion: NullableString,
    simulationVersion: NullableString,
    replayFormatVersion: NullableString,
    contentDigest: NullableString,
    initialStateBytes: NullableInt,
  }),
  evidence: Type.Object({
    status: StringEnum(['NONE', 'REQUESTED', 'UPLOADED', 'EXPIRED'] as const),
    uploadBefore: Type.Union([TimestampSchema, Type.Null()]),
    maxBytes: NullableInt,
    bytes: NullableInt,
    uploadedAt: Type.Union([TimestampSchema, Type.Null()]),
  }),
  review: Type.Object({
    verdict: Type.Union([StringEnum(['APPROVED', 'REJECTED'] as const), Type.Null()]),
    reviewedAt: Type.Union([TimestampSchema, Type.Null()]),
    scoreRemoved: Type.Boolean(),
  }),
})
export type AdminRun = Static<typeof AdminRunSchema>

export const AdminRunDetailSchema = Type.Object({
  ...AdminRunSchema.properties,
  submissions: Type.Array(Type.Object({ code: Type.String(), status: Type.Integer(), at: TimestampSchema })),
})
export type AdminRunDetail = Static<typeof AdminRunDetailSchema>
export const AdminRunListSchema = Type.Object({
  items: Type.Array(AdminRunSchema),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
})

export const ReviewBodySchema = Type.Object({ verdict: StringEnum(['APPROVED', 'REJECTED'] as const) })

// ---- what validated actions announce -------------------------------------------------------------

/** `run.flagged`: a validated run was marked suspicious or rejected. */
export const RunFlaggedEventSchema = Type.Object({
  runId: Type.String(),
  userId: Type.String(),
  board: Type.Union([Type.String(), Type.Null()]),
  score: Type.Number(),
  status: StringEnum(['sus', 'rejected'] as const),
  reason: Type.String(),
})

// Loads the hub's module, which the maps below extend, in every program (the console's too).
import type {} from '../../platform/core/events.js'

declare module '../../platform/core/events.js' {
  interface RaisedEvents {
    'run.flagged': Static<typeof RunFlaggedEventSchema>
  }
}

// ---- its part of a player's data export (features/users/export.ts) -------------------------------

/** The player's values, their history and runs. */
export const ValidatedExportSchema = {
  values: Type.Array(
    Type.Object({
      key: Type.String(),
      balance: Type.Number(),
      earnedToday: Type.Number(),
      earnedDay: Type.String(),
      updatedAt: TimestampSchema,
    }),
  ),
  valueHistory: Type.Array(
    Type.Object({
      id: Type.String(),
      key: Type.String(),
      amount: Type.Number(),
      balanceAfter: Type.Number(),
      reason: Type.Union([Type.String(), Type.Null()]),
      createdAt: TimestampSchema,
    }),
  ),
  runs: Type.Array(
    Type.Object({
      runId: Type.String(),
      leaderboardKey: Type.Union([Type.String(), Type.Null()]),
      context: Type.Unknown({ description: 'JSON as stored' }),
      issuedAt: TimestampSchema,
      consumedAt: Type.Union([TimestampSchema, Type.Null()]),
      outcome: Type.Union([Type.String(), Type.Null()]),
      reason: Type.Union([Type.String(), Type.Null()]),
      score: Type.Union([Type.Number(), Type.Null()]),
      stage: Type.Union([Type.String(), Type.Null()]),
      earned: Type.Unknown({ description: 'JSON as stored' }),
      durationMs: Type.Union([Type.Integer(), Type.Null()]),
      evidenceStatus: Type.Union([Type.String(), Type.Null()]),
      reviewVerdict: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
}
