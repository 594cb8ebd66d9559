import { Type, type Static } from '@sinclair/typebox'
import { NameSchema, Nullable, OptionalString, StringEnum, TimestampSchema } from './common.js'

const AuthTypeSchema = StringEnum(['ANONYMOUS', 'EMAIL', 'GOOGLE', 'APPLE'], {
  description: 'ANONYMOUS (default); EMAIL, GOOGLE and APPLE are not enabled on this server',
})

export const SignupBodySchema = Type.Object({
  type: Nullable(AuthTypeSchema),
  username: OptionalString({ ...NameSchema, description: 'The name (wins over displayName)' }),
  displayName: OptionalString({ ...NameSchema, description: 'Self-hosted form of username' }),
  anonymousToken: OptionalString({
    pattern: '^[A-Za-z0-9_-]{8,64}$',
    description: 'Client-chosen token (8–64 of [A-Za-z0-9_-]); issued by the server when absent',
  }),
  email: OptionalString({ maxLength: 254 }),
  password: OptionalString({ maxLength: 128 }),
  includeRefreshToken: Nullable(Type.Boolean()),
})
export type SignupBody = Static<typeof SignupBodySchema>

export const SigninBodySchema = Type.Object({
  type: Nullable(AuthTypeSchema),
  anonymousToken: OptionalString({ maxLength: 256 }),
  refreshToken: OptionalString({ maxLength: 512 }),
  email: OptionalString({ maxLength: 254 }),
  password: OptionalString({ maxLength: 128 }),
  includeRefreshToken: Nullable(Type.Boolean()),
})
export type SigninBody = Static<typeof SigninBodySchema>

const NullableString = Type.Union([Type.String(), Type.Null()])
const NullableTimestamp = Type.Union([TimestampSchema, Type.Null()])

/** The auth response (compat): every field always present, null where it does not apply. */
export const AuthResponseSchema = Type.Object({
  userId: Type.String(),
  username: Type.String(),
  displayName: Type.String(),
  email: NullableString,
  isAnonymous: Type.Boolean(),
  isVerified: Type.Boolean(),
  anonymousToken: NullableString,
  accessToken: Type.String(),
  expiresAt: TimestampSchema,
  refreshToken: NullableString,
  refreshExpiresAt: NullableTimestamp,
  authStatus: Type.Literal('AUTHENTICATED'),
  googleId: Type.Null(),
  appleUserId: Type.Null(),
  isPrivateRelayEmail: Type.Boolean(),
  message: Type.Null(),
  createdAt: TimestampSchema,
})
export type AuthResponse = Static<typeof AuthResponseSchema>
