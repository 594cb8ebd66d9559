import { Type, type Static } from '@sinclair/typebox'
import {
  NameSchema,
  Nullable,
  OptionalString,
  TimestampSchema,
  UuidSchema,
  StringEnum,
} from '../../platform/schemas/common.js'

export const AuthStatusSchema = StringEnum([
  'AUTHENTICATED',
  'INVALID_TOKEN',
  'TOKEN_EXPIRED',
  'USER_NOT_FOUND',
] as const)

export const CheckAuthBodySchema = Type.Object({
  userId: UuidSchema,
  sessionToken: OptionalString({ maxLength: 512 }),
})
export const CheckAuthResponseSchema = Type.Object({
  userId: Type.String(),
  isAuthenticated: Type.Boolean(),
  authStatus: AuthStatusSchema,
  message: Type.String(),
})
export type CheckAuthResponse = Static<typeof CheckAuthResponseSchema>

export const ChangeNameBodySchema = Type.Object({
  userId: UuidSchema,
  sessionToken: OptionalString({ maxLength: 512 }),
  newName: NameSchema,
})
export type ChangeNameBody = Static<typeof ChangeNameBodySchema>
export const ChangeNameResponseSchema = Type.Object({
  isAuthenticated: Type.Boolean(),
  authStatus: Type.Literal('AUTHENTICATED'),
  userId: Type.String(),
  username: Type.String(),
})

export const SignoutBodySchema = Type.Object({
  userId: Nullable(UuidSchema),
  sessionToken: OptionalString({ maxLength: 512 }),
})

/** A sign-in provider bound to a user: one user per provider subject. */
export const LinkedProviderSchema = Type.Object({
  provider: StringEnum(['apple', 'google'] as const),
  subject: Type.String({ description: "The provider's id of the account (Apple's user id, Google's sub)" }),
  email: Type.Union([Type.String(), Type.Null()], { description: 'The address the provider gave when linked' }),
  isPrivateRelayEmail: Type.Boolean(),
  linkedAt: TimestampSchema,
})
export type LinkedProvider = Static<typeof LinkedProviderSchema>

/** What the operator sees of a user. */
export const AdminUserSchema = Type.Object({
  userId: Type.String(),
  username: Type.String(),
  displayName: Type.String(),
  email: Type.Union([Type.String(), Type.Null()]),
  isAnonymous: Type.Boolean(),
  isVerified: Type.Boolean(),
  banned: Type.Boolean(),
  bannedAt: Type.Union([TimestampSchema, Type.Null()]),
  banReason: Type.Union([Type.String(), Type.Null()]),
  activeSessions: Type.Integer(),
  linkedProviders: Type.Array(LinkedProviderSchema, {
    description: 'Apple and Google accounts the user signs in with',
  }),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
})
export type AdminUser = Static<typeof AdminUserSchema>

export const AdminUserListSchema = Type.Object({
  items: Type.Array(AdminUserSchema),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
})

export const AdminUserSearchQuerySchema = Type.Object({
  query: Type.Optional(Type.String({ maxLength: 254 })),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
})

export const UserIdParamsSchema = Type.Object({ userId: UuidSchema })

export const BanBodySchema = Type.Object({ reason: OptionalString({ maxLength: 500 }) })

export const DeletedSchema = Type.Object({ userId: Type.String(), deleted: Type.Literal(true) })

// ---- data export (right of access and portability) -------------------------------------------

const Str = Type.String()
const NullableStr = Type.Union([Type.String(), Type.Null()])
const NullableTime = Type.Union([TimestampSchema, Type.Null()])
const NullableInt = Type.Union([Type.Integer(), Type.Null()])
const AnyJson = Type.Unknown({ description: 'JSON as stored' })

/**
 * Everything stored about one player, each part from the feature that owns it. Secrets are left out
 * by construction: only the fields below are ever written (no password, token or ticket digests).
 */
export const UserExportSchema = Type.Object({
  exportedAt: TimestampSchema,
  account: Type.Object({
    userId: Str,
    username: Str,
    displayName: Str,
    email: NullableStr,
    isAnonymous: Type.Boolean(),
    isVerified: Type.Boolean(),
    hasPassword: Type.Boolean({ description: 'An e-mail account with a password (the hash is not exported)' }),
    hasAnonymousToken: Type.Boolean({ description: 'Signs in with an anonymous token (the token is not exported)' }),
    banned: Type.Boolean(),
    bannedAt: NullableTime,
    banReason: NullableStr,
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
  }),
  sessions: Type.Array(
    Type.Object({
      sessionId: Str,
      familyId: Str,
      createdAt: TimestampSchema,
      expiresAt: TimestampSchema,
      refreshExpiresAt: NullableTime,
      refreshUsedAt: NullableTime,
      revokedAt: NullableTime,
    }),
  ),
  profile: Type.Union([
    Type.Object({
      avatarId: NullableStr,
      frameId: NullableStr,
      badges: Type.Array(Str),
      customData: AnyJson,
      createdAt: TimestampSchema,
      updatedAt: TimestampSchema,
    }),
    Type.Null(),
  ]),
  unlocks: Type.Array(Type.Object({ cosmeticId: Str, unlockedAt: TimestampSchema })),
  leaderboardEntries: Type.Array(
    Type.Object({
      leaderboardKey: Str,
      period: Str,
      score: Type.Number(),
      reachedAt: TimestampSchema,
      hidden: Type.Boolean({ description: 'Hidden while the player is banned from the board' }),
      metadata: AnyJson,
      createdAt: TimestampSchema,
    }),
  ),
  leaderboardBans: Type.Array(Type.Object({ leaderboardKey: Str, reason: NullableStr, bannedAt: TimestampSchema })),
  cloudSave: Type.Union([
    Type.Object({
      encoding: StringEnum(['utf8', 'base64'] as const, { description: 'base64 for a save stored as binary' }),
      data: Str,
      sizeBytes: Type.Integer(),
      version: Type.Integer(),
      createdAt: TimestampSchema,
      updatedAt: TimestampSchema,
    }),
    Type.Null(),
  ]),
  values: Type.Array(
    Type.Object({
      key: Str,
      balance: Type.Number(),
      earnedToday: Type.Number(),
      earnedDay: Str,
      updatedAt: TimestampSchema,
    }),
  ),
  valueHistory: Type.Array(
    Type.Object({
      id: Str,
      key: Str,
      amount: Type.Number(),
      balanceAfter: Type.Number(),
      reason: NullableStr,
      createdAt: TimestampSchema,
    }),
  ),
  runs: Type.Array(
    Type.Object({
      runId: Str,
      leaderboardKey: NullableStr,
      context: AnyJson,
      issuedAt: TimestampSchema,
      consumedAt: NullableTime,
      outcome: NullableStr,
      reason: NullableStr,
      score: Type.Union([Type.Number(), Type.Null()]),
      stage: NullableStr,
      earned: AnyJson,
      durationMs: NullableInt,
      evidenceStatus: NullableStr,
      reviewVerdict: NullableStr,
    }),
  ),
  giftCodeRedemptions: Type.Array(
    Type.Object({ code: Str, giftData: Str, grantedUnlocks: Type.Array(Str), redeemedAt: TimestampSchema }),
  ),
  emails: Type.Array(
    Type.Object({
      id: Str,
      template: Str,
      language: Str,
      recipient: Str,
      subject: Str,
      account: Type.Boolean({ description: 'A verification or password-reset e-mail' }),
      status: Str,
      scheduledAt: TimestampSchema,
      processedAt: NullableTime,
      createdAt: TimestampSchema,
    }),
  ),
  feedback: Type.Array(
    Type.Object({
      id: Str,
      title: Str,
      message: Str,
      category: Str,
      email: NullableStr,
      deviceInfo: NullableStr,
      createdAt: TimestampSchema,
    }),
  ),
  logs: Type.Array(
    Type.Object({ id: Str, message: Str, type: Str, errorCode: NullableStr, createdAt: TimestampSchema }),
  ),
  crashSessions: Type.Array(
    Type.Object({
      sessionId: Str,
      appVersion: Str,
      platform: Str,
      crashed: Type.Boolean(),
      createdAt: TimestampSchema,
    }),
  ),
  crashReports: Type.Array(
    Type.Object({
      id: Str,
      groupId: Str,
      sessionId: Str,
      type: Str,
      message: Str,
      stackTrace: Str,
      fingerprint: Str,
      appVersion: Str,
      sdkVersion: Str,
      platform: Str,
      os: Str,
      deviceModel: Str,
      deviceMemoryMb: NullableInt,
      breadcrumbs: Type.Array(Type.Object({ timestamp: Str, type: Str, message: Str })),
      customKeys: Type.Record(Type.String(), Type.String()),
      createdAt: TimestampSchema,
    }),
  ),
})
export type UserExport = Static<typeof UserExportSchema>
