import { Type, type Static, type TProperties } from '@sinclair/typebox'
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

/** The users feature's own fields of a player's export, which the document begins with. */
export const UserExportHeadSchema = {
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
}

/**
 * Everything stored about one player: the head, then each feature's part (its manifest's
 * `playerExport`, in `inListOrder`). Secrets are left out by construction: only the fields the parts
 * declare are ever written (no password, token or ticket digests).
 */
export function userExportSchema(parts: readonly TProperties[]) {
  return Type.Object(Object.assign({ ...UserExportHeadSchema }, ...parts) as typeof UserExportHeadSchema)
}
export type UserExport = Static<ReturnType<typeof userExportSchema>> & Record<string, unknown>

// ---- what users announce -------------------------------------------------------------------------

/** `player.banned`: an operator banned a player. */
export const PlayerBannedEventSchema = Type.Object({
  userId: Type.String(),
  playerName: Type.String(),
  reason: Type.Union([Type.String(), Type.Null()]),
})

// Loads the hub's module, which the maps below extend, in every program (the console's too).
import type {} from '../../platform/core/events.js'

declare module '../../platform/core/events.js' {
  interface RaisedEvents {
    'player.banned': Static<typeof PlayerBannedEventSchema>
  }
  interface Notices {
    /** What other players see of a player (the name, the public profile) changed. */
    publicPlayerChanged: []
  }
  interface TransactionNotices {
    /** A user is being deleted: what no ON DELETE CASCADE updates goes first, in the deleting transaction. */
    userDeleting: [userId: string]
  }
}
