import { Type, type Static } from '@sinclair/typebox'
import { AdminListQuerySchema, StringEnum, TimestampSchema } from '../../platform/schemas/common.js'
import { GAME_ID_PATTERN } from '../../db/game-schema.js'

export const ROLE_VALUES = ['owner', 'moderator', 'viewer'] as const
export const RoleSchema = StringEnum(ROLE_VALUES, {
  description:
    'owner: every game, its keys and settings, and the operators; moderator: the games of `roles`, not operators ' +
    'or settings; viewer: reads only, in the games of `roles`',
})

export const GameRolesSchema = Type.Record(
  Type.String({ pattern: GAME_ID_PATTERN }),
  StringEnum(['moderator', 'viewer'] as const),
  {
    maxProperties: 1000,
    additionalProperties: false,
    description:
      "A non-owner's role in each game it may see, by game id (contract §14); games not named are hidden from it",
  },
)
const RolesAnswerSchema = Type.Union([GameRolesSchema, Type.Null()], {
  description: 'The role in each game, by game id; null for an owner (and the admin key), who holds every game',
})

export const UsernameSchema = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$',
  description: 'Letters, digits, dot, dash and underscore; case-insensitive (kept lower-cased)',
})
export const PasswordSchema = Type.String({ minLength: 12, maxLength: 1024, description: '12 to 1024 characters' })
const TotpCodeSchema = Type.String({ pattern: '^[0-9]{6}$', description: 'The 6-digit code of the authenticator app' })

export const SignInBodySchema = Type.Object({
  username: Type.String({ minLength: 1, maxLength: 200 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
  totp: Type.Optional(Type.String({ maxLength: 16, description: 'Required when the operator has enrolled TOTP' })),
})

export const SessionSchema = Type.Object(
  {
    username: Type.String({ description: 'The operator, or "admin-key" for the X-Admin-Key' }),
    role: RoleSchema,
    roles: RolesAnswerSchema,
    expiresAt: Type.Union([TimestampSchema, Type.Null()], {
      description: 'When the session ends at the latest (null for the admin key)',
    }),
  },
  { description: 'Who is signed in' },
)
export type Session = Static<typeof SessionSchema>

export const SignedOutSchema = Type.Object({ signedOut: Type.Literal(true) })

export const PasswordChangeBodySchema = Type.Object({
  currentPassword: Type.String({ minLength: 1, maxLength: 1024 }),
  newPassword: PasswordSchema,
})
export const PasswordChangedSchema = Type.Object({
  changed: Type.Literal(true),
  revokedSessions: Type.Integer({ description: 'Your other sessions, now ended' }),
})

export const TotpEnrollmentSchema = Type.Object({
  secret: Type.String({ description: 'Base32 secret, for typing into an authenticator app' }),
  uri: Type.String({ description: 'otpauth:// URI, for a QR code' }),
})
export const TotpBeginBodySchema = Type.Object({
  currentPassword: Type.String({ minLength: 1, maxLength: 1024, description: 'Your current password' }),
  currentCode: Type.Optional(
    Type.String({
      maxLength: 16,
      description: 'A code of your current second factor: required when one is set (it is being replaced)',
    }),
  ),
})
export const TotpConfirmBodySchema = Type.Object({ code: TotpCodeSchema })
export const TotpConfirmedSchema = Type.Object({
  totpEnabled: Type.Literal(true),
  revokedSessions: Type.Integer({ description: 'Your other sessions, now ended' }),
})

export const OperatorSchema = Type.Object({
  username: Type.String(),
  role: RoleSchema,
  roles: RolesAnswerSchema,
  totpEnabled: Type.Boolean(),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
})
export type OperatorBody = Static<typeof OperatorSchema>
export const OperatorListSchema = Type.Object({ items: Type.Array(OperatorSchema) })

export const OperatorParamsSchema = Type.Object({ username: UsernameSchema })
export const OperatorCreateBodySchema = Type.Object({
  username: UsernameSchema,
  password: PasswordSchema,
  role: RoleSchema,
  roles: Type.Optional(GameRolesSchema),
})
export const OperatorRoleBodySchema = Type.Object({ role: RoleSchema, roles: Type.Optional(GameRolesSchema) })
export const OperatorRemovedSchema = Type.Object({ username: Type.String(), removed: Type.Literal(true) })
export const SessionsRevokedSchema = Type.Object({ username: Type.String(), revokedSessions: Type.Integer() })

export const AuditQuerySchema = Type.Composite([
  AdminListQuerySchema,
  Type.Object({
    actor: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Operator name, admin-key or cli' })),
    action: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description: 'sign-in, sign-in-failed, or a route such as "PUT /leaderboards/:boardKey"',
      }),
    ),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'From this time (inclusive)' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'Until this time (exclusive)' })),
  }),
])

export const AuditEntrySchema = Type.Object({
  id: Type.Integer({ description: 'Increases with every entry written' }),
  at: TimestampSchema,
  actor: Type.String({ description: 'Operator name, "admin-key", "cli", or for a failed sign-in the name tried' }),
  actorVerified: Type.Boolean({
    description:
      'False when no credential proved the actor: a failed sign-in, whose actor and request id are what the caller sent',
  }),
  role: Type.Union([Type.String(), Type.Null()]),
  address: Type.String({ description: 'Client address (X-Forwarded-For when TRUST_PROXY trusts the proxy)' }),
  requestId: Type.String(),
  action: Type.String({ description: '`METHOD /route/:param` below /api/v1/admin, or sign-in / sign-in-failed' }),
  status: Type.Integer({ description: 'The HTTP status answered' }),
  target: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], { description: 'The path parameters' }),
  changes: Type.Unknown({
    description: 'The request body, secrets replaced by "[redacted]", cut to a preview past 4000 characters',
  }),
  game: Type.String({ description: 'The game the write was for (contract §14); `default` before games existed' }),
})
export type AuditEntry = Static<typeof AuditEntrySchema>
export const AuditListSchema = Type.Object({
  items: Type.Array(AuditEntrySchema),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
})
