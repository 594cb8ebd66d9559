import { Type, type Static } from '@sinclair/typebox'
import { NameSchema, Nullable, OptionalString, TimestampSchema, UuidSchema, StringEnum } from './common.js'

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
