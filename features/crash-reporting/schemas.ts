import { Type, type Static } from '@sinclair/typebox'
import { AdminListQuerySchema, StringEnum, TimestampSchema, UuidSchema } from '../../platform/schemas/common.js'

export const CRASH_TYPES = ['CRASH', 'NON_FATAL', 'ANR'] as const
export const GROUP_STATUSES = ['OPEN', 'RESOLVED', 'IGNORED', 'REGRESSED'] as const
export const SETTABLE_STATUSES = ['OPEN', 'RESOLVED', 'IGNORED'] as const

/**
 * A text field of a crash report: missing, null and "" are all stored as "". No length limit here:
 * over-long values are truncated by the service (ingestion never refuses a crash for its size).
 */
const LenientString = (description: string) => Type.Optional(Type.Union([Type.String(), Type.Null()], { description }))

export const CrashSessionBodySchema = Type.Object({
  sessionId: Type.String({
    minLength: 1,
    description: "The client's id for this app run (over 128 characters: shortened)",
  }),
  appVersion: LenientString('App version; absent = ""'),
  platform: LenientString('Platform; absent = ""'),
  userId: LenientString("Any string (a known user's UUID links the session to the user)"),
})
export type CrashSessionBody = Static<typeof CrashSessionBodySchema>

export const CrashSessionResponseSchema = Type.Object({ status: Type.Literal('ok') })

const BreadcrumbSchema = Type.Object({
  timestamp: Type.Optional(
    Type.Union([Type.String(), Type.Number(), Type.Null()], { description: 'Kept as given, in any format' }),
  ),
  type: LenientString('Breadcrumb category'),
  message: LenientString('Breadcrumb text'),
})

export const CrashReportBodySchema = Type.Object({
  type: StringEnum(CRASH_TYPES, { description: 'The one required field' }),
  message: LenientString('Over 8,192 characters: truncated'),
  stackTrace: LenientString('Over 65,536 characters: truncated'),
  fingerprint: LenientString('Grouping key; "" = derived from type, message and the top stack frames'),
  appVersion: LenientString('App version'),
  sdkVersion: LenientString('SDK version'),
  platform: LenientString('Platform'),
  os: LenientString('Operating system'),
  deviceModel: LenientString('Device model'),
  deviceMemoryMb: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
  sessionId: LenientString('"" = filed under a generated session'),
  userId: LenientString('Any string ("anonymous", ""...); a known user\'s UUID links the report to the user'),
  breadcrumbs: Type.Optional(
    Type.Union([Type.Array(BreadcrumbSchema), Type.Null()], { description: 'Only the last 100 are kept' }),
  ),
  customKeys: Type.Optional(
    Type.Union([Type.Unsafe<Record<string, unknown>>({ type: 'object' }), Type.Null()], {
      description: 'Object of strings; other values are kept as their JSON text; the first 64 keys are kept',
    }),
  ),
})
export type CrashReportBody = Static<typeof CrashReportBodySchema>

export const CrashReportCreatedSchema = Type.Object({
  id: Type.String(),
  groupId: Type.String(),
  createdAt: TimestampSchema,
  truncated: Type.Boolean({ description: 'Some field was over its limit and was shortened' }),
})
export type CrashReportCreated = Static<typeof CrashReportCreatedSchema>

// ---- admin ----------------------------------------------------------------------------------

export const CrashGroupSchema = Type.Object({
  id: Type.String(),
  fingerprint: Type.String(),
  type: Type.String(),
  message: Type.String({ description: "The first report's message (up to 500 characters)" }),
  status: StringEnum(GROUP_STATUSES),
  resolvedInVersion: Type.Union([Type.String(), Type.Null()]),
  occurrences: Type.Integer({ description: 'Reports received' }),
  affectedUsers: Type.Integer({
    description: 'Distinct userIds (not "" or "anonymous") of the stored reports\' senders',
  }),
  affectedVersions: Type.Array(Type.String(), { description: 'App versions that reported it, newest version first' }),
  firstSeen: TimestampSchema,
  lastSeen: TimestampSchema,
  lastAppVersion: Type.String(),
})
export type CrashGroupView = Static<typeof CrashGroupSchema>

export const CrashGroupListQuerySchema = Type.Composite([
  AdminListQuerySchema,
  Type.Object({
    status: Type.Optional(StringEnum(GROUP_STATUSES)),
    sort: StringEnum(['lastSeen', 'count'] as const, {
      default: 'lastSeen',
      description: 'Newest last occurrence, or most occurrences, first',
    }),
  }),
])
export type CrashGroupListQuery = Static<typeof CrashGroupListQuerySchema>

export const CrashGroupListSchema = Type.Object({
  items: Type.Array(CrashGroupSchema),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
})

export const CrashGroupParamsSchema = Type.Object({ groupId: UuidSchema })

export const CrashOccurrenceSchema = Type.Object({
  id: Type.String(),
  type: Type.String(),
  message: Type.String(),
  stackTrace: Type.String(),
  fingerprint: Type.String(),
  appVersion: Type.String(),
  sdkVersion: Type.String(),
  platform: Type.String(),
  os: Type.String(),
  deviceModel: Type.String(),
  deviceMemoryMb: Type.Union([Type.Integer(), Type.Null()]),
  sessionId: Type.String(),
  userId: Type.String({ description: 'As the client sent it (a UUID in lower case)' }),
  linkedUserId: Type.Union([Type.String(), Type.Null()], { description: 'The user it names, when that user exists' }),
  breadcrumbs: Type.Array(Type.Object({ timestamp: Type.String(), type: Type.String(), message: Type.String() })),
  customKeys: Type.Record(Type.String(), Type.String()),
  truncated: Type.Boolean(),
  createdAt: TimestampSchema,
})
export type CrashOccurrence = Static<typeof CrashOccurrenceSchema>

export const CrashGroupDetailSchema = Type.Composite([
  CrashGroupSchema,
  Type.Object({
    versions: Type.Array(
      Type.Object({
        appVersion: Type.String(),
        occurrences: Type.Integer(),
        firstSeen: TimestampSchema,
        lastSeen: TimestampSchema,
      }),
      { description: 'Per app version, newest version first' },
    ),
    recentOccurrences: Type.Array(CrashOccurrenceSchema, { description: 'The latest reports, newest first' }),
  }),
])
export type CrashGroupDetail = Static<typeof CrashGroupDetailSchema>

export const CrashGroupUserSchema = Type.Object({
  userKey: Type.String({ description: 'The userId as the client sent it (exactly, up to 128 characters)' }),
  userId: Type.Union([Type.String(), Type.Null()], { description: 'The user it names, when that user exists' }),
  username: Type.Union([Type.String(), Type.Null()], { description: "That user's name; null when none is linked" }),
  firstSeen: TimestampSchema,
  lastSeen: TimestampSchema,
})
export type CrashGroupUser = Static<typeof CrashGroupUserSchema>

export const CrashGroupUserListSchema = Type.Object({
  items: Type.Array(CrashGroupUserSchema),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
})

export const CrashGroupUpdateSchema = Type.Object({
  status: StringEnum(SETTABLE_STATUSES),
  resolvedInVersion: Type.Optional(
    Type.Union([Type.String({ minLength: 1, maxLength: 128 }), Type.Null()], {
      description:
        'With RESOLVED only: reports from a newer version turn the group REGRESSED; without it any new report does',
    }),
  ),
})
export type CrashGroupUpdate = Static<typeof CrashGroupUpdateSchema>

export const CrashStatsQuerySchema = Type.Object({
  appVersion: Type.Optional(Type.String({ maxLength: 128, description: 'One version; absent = all versions' })),
})

const StatsLineSchema = Type.Object({
  sessions: Type.Integer(),
  crashedSessions: Type.Integer(),
  crashFreeRate: Type.Union([Type.Number(), Type.Null()], {
    description: '(sessions − crashed) / sessions, 0–1; null with no sessions',
  }),
})

export const CrashStatsSchema = Type.Composite([
  Type.Object({ appVersion: Type.Union([Type.String(), Type.Null()]) }),
  StatsLineSchema,
  Type.Object({
    versions: Type.Array(Type.Composite([Type.Object({ appVersion: Type.String() }), StatsLineSchema]), {
      description: 'Per app version, newest version first (at most 100)',
    }),
  }),
])
export type CrashStats = Static<typeof CrashStatsSchema>

// ---- what crash reporting announces --------------------------------------------------------------

/** `crash.group_created` (a crash never seen before) and `crash.group_regressed` (a resolved one is back). */
export const CrashGroupEventSchema = Type.Object({
  groupId: Type.String(),
  type: Type.String(),
  message: Type.String(),
  appVersion: Type.String(),
  platform: Type.String(),
  userId: Type.Union([Type.String(), Type.Null()]),
})

// Loads the hub's module, which the maps below extend, in every program (the console's too).
import type {} from '../../platform/core/events.js'

declare module '../../platform/core/events.js' {
  interface RaisedEvents {
    'crash.group_created': Static<typeof CrashGroupEventSchema>
    'crash.group_regressed': Static<typeof CrashGroupEventSchema>
  }
}

// ---- its part of a player's data export (features/users/export.ts) -------------------------------

/** The player's sessions and crash reports. */
export const CrashExportSchema = {
  crashSessions: Type.Array(
    Type.Object({
      sessionId: Type.String(),
      appVersion: Type.String(),
      platform: Type.String(),
      crashed: Type.Boolean(),
      createdAt: TimestampSchema,
    }),
  ),
  crashReports: Type.Array(
    Type.Object({
      id: Type.String(),
      groupId: Type.String(),
      sessionId: Type.String(),
      type: Type.String(),
      message: Type.String(),
      stackTrace: Type.String(),
      fingerprint: Type.String(),
      appVersion: Type.String(),
      sdkVersion: Type.String(),
      platform: Type.String(),
      os: Type.String(),
      deviceModel: Type.String(),
      deviceMemoryMb: Type.Union([Type.Integer(), Type.Null()]),
      breadcrumbs: Type.Array(Type.Object({ timestamp: Type.String(), type: Type.String(), message: Type.String() })),
      customKeys: Type.Record(Type.String(), Type.String()),
      createdAt: TimestampSchema,
    }),
  ),
}
