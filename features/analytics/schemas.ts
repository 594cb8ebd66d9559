import { Type, type Static } from '@sinclair/typebox'
import { BoardKeySchema } from '../leaderboard/schemas.js'

/** The daily series an operator may ask for (contract §12), in the order they are answered by default. */
export const DAILY_METRICS = [
  'signups',
  'active',
  'sessions',
  'crashFreeRate',
  'crashes',
  'submits',
  'redemptions',
  'feedback',
  'emailsSent',
  'emailsFailed',
] as const
export type DailyMetric = (typeof DAILY_METRICS)[number]

/** Most days one range may hold. */
export const MAX_RANGE_DAYS = 366
export const DEFAULT_RANGE_DAYS = 30

const DateSchema = (description: string) =>
  Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description, examples: ['2026-11-22'] })

const RangeQuery = {
  from: Type.Optional(DateSchema('First UTC day, YYYY-MM-DD (default: 29 days before `to`)')),
  to: Type.Optional(DateSchema('Last UTC day, YYYY-MM-DD, inclusive (default: today)')),
}

export const DailyQuerySchema = Type.Object({
  metrics: Type.Optional(
    Type.String({
      maxLength: 400,
      description: `Comma-separated, any of ${DAILY_METRICS.join(', ')} (default: all)`,
    }),
  ),
  ...RangeQuery,
  appVersion: Type.Optional(
    Type.String({ maxLength: 128, description: 'Narrows sessions, crashes and crashFreeRate to one app version' }),
  ),
  leaderboardKey: Type.Optional(BoardKeySchema),
})
export type DailyQuery = Static<typeof DailyQuerySchema>

const Day = Type.String({ description: 'UTC day, YYYY-MM-DD' })
const Series = Type.Optional(Type.Array(Type.Union([Type.Number(), Type.Null()])))

export const DailyResponseSchema = Type.Object({
  from: Day,
  to: Day,
  days: Type.Array(Day),
  series: Type.Object(
    {
      signups: Series,
      active: Series,
      sessions: Series,
      crashFreeRate: Series,
      crashes: Series,
      submits: Series,
      redemptions: Series,
      feedback: Series,
      emailsSent: Series,
      emailsFailed: Series,
    },
    {
      description:
        'For each metric asked for, one value per day of `days` (crashFreeRate: null on a day without sessions; ' +
        'narrowed by appVersion, sessions, crashes and crashFreeRate are null on a day that version was not among ' +
        'the 20 with the most sessions)',
    },
  ),
})
export type DailyResponse = Static<typeof DailyResponseSchema>

export const RetentionQuerySchema = Type.Object(RangeQuery)
export type RetentionQuery = Static<typeof RetentionQuerySchema>

const Share = Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
  description:
    'Share of the cohort active on that day after sign-up; null while that day is ahead, or for an empty cohort',
})

export const RetentionResponseSchema = Type.Object({
  cohorts: Type.Array(
    Type.Object({
      date: Day,
      size: Type.Integer({ description: 'Players who signed up that day (and still exist)' }),
      d1: Share,
      d7: Share,
      d30: Share,
    }),
  ),
})
export type RetentionResponse = Static<typeof RetentionResponseSchema>

export const CountsResponseSchema = Type.Object({
  players: Type.Integer(),
  playersByKind: Type.Object({
    anonymous: Type.Integer(),
    email: Type.Integer(),
    apple: Type.Integer(),
    google: Type.Integer(),
  }),
  bannedPlayers: Type.Integer(),
  activeToday: Type.Integer(),
  boards: Type.Integer(),
  entries: Type.Integer({ description: "Visible entries in every board's current period" }),
  saves: Type.Integer(),
  giftCodes: Type.Integer(),
  openCrashGroups: Type.Integer({ description: 'Crash groups OPEN or REGRESSED' }),
  pendingReviews: Type.Integer({ description: 'Validated runs flagged as suspicious and not yet reviewed' }),
  emailsQueued: Type.Integer({ description: 'E-mails pending or being sent' }),
  feedback: Type.Integer(),
})
export type CountsResponse = Static<typeof CountsResponseSchema>

export { BoardParamsSchema as HistogramParamsSchema } from '../leaderboard/schemas.js'
export const HistogramQuerySchema = Type.Object({
  buckets: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'At most this many buckets' }),
  ),
})

export const HistogramResponseSchema = Type.Object({
  boardKey: Type.String(),
  period: Type.String({ description: "The board's current period" }),
  min: Type.Union([Type.Number(), Type.Null()], { description: 'Lowest score; null for an empty period' }),
  max: Type.Union([Type.Number(), Type.Null()], { description: 'Highest score; null for an empty period' }),
  buckets: Type.Array(
    Type.Object({
      from: Type.Number({ description: 'Lowest score of the bucket, inclusive' }),
      to: Type.Number({ description: 'Highest score of the bucket, inclusive' }),
      count: Type.Integer(),
    }),
  ),
})
