import { Type, type Static } from '@sinclair/typebox'
import { NameSchema, Nullable, OptionalString, StringEnum, TimestampSchema } from '../../platform/schemas/common.js'

const AuthTypeSchema = StringEnum(['ANONYMOUS', 'EMAIL', 'GOOGLE', 'APPLE'], {
  description: 'ANONYMOUS (default), EMAIL, or sign-in with GOOGLE or APPLE (when the server is configured for it)',
})

/** Apple and Google sign-in fields: sign-up and sign-in take the same ones. */
const socialFields = {
  appleIdentityToken: OptionalString({
    maxLength: 8192,
    description: 'type APPLE: the identity token (JWT) Apple gave the app',
  }),
  appleFirstName: OptionalString({
    ...NameSchema,
    description: 'type APPLE: first name (Apple sends it on the first sign-in only)',
  }),
  appleLastName: OptionalString({ ...NameSchema, description: 'type APPLE: last name' }),
  googleAuthorizationCode: OptionalString({
    maxLength: 2000,
    description: 'type GOOGLE: the server auth code Google gave the app (exchanged once; kept 10 minutes)',
  }),
  googleRedirectUri: OptionalString({
    maxLength: 2000,
    description: 'type GOOGLE: the redirect URI the code was issued for; empty for mobile apps',
  }),
}

export const SignupBodySchema = Type.Object({
  type: Nullable(AuthTypeSchema),
  username: OptionalString({ ...NameSchema, description: 'The name (wins over displayName)' }),
  displayName: OptionalString({ ...NameSchema, description: 'Self-hosted form of username' }),
  anonymousToken: OptionalString({
    pattern: '^[A-Za-z0-9_-]{8,64}$',
    description: 'Client-chosen token (8–64 of [A-Za-z0-9_-]); issued by the server when absent',
  }),
  email: OptionalString({
    maxLength: 254,
    format: 'email',
    description: 'type EMAIL: the address (unique case-insensitively)',
  }),
  password: OptionalString({ minLength: 8, maxLength: 128, description: 'type EMAIL: 8–128 characters' }),
  includeRefreshToken: Nullable(Type.Boolean()),
  ...socialFields,
})
export type SignupBody = Static<typeof SignupBodySchema>

export const SigninBodySchema = Type.Object({
  type: Nullable(AuthTypeSchema),
  anonymousToken: OptionalString({ maxLength: 256 }),
  refreshToken: OptionalString({ maxLength: 512 }),
  email: OptionalString({ maxLength: 254 }),
  password: OptionalString({ maxLength: 128 }),
  includeRefreshToken: Nullable(Type.Boolean()),
  username: OptionalString({ ...NameSchema, description: 'type APPLE or GOOGLE: the name of an account created here' }),
  ...socialFields,
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
  googleId: Type.Union([Type.String(), Type.Null()], { description: 'Google sign-in: the Google account id' }),
  appleUserId: Type.Union([Type.String(), Type.Null()], { description: 'Apple sign-in: the Apple user id' }),
  isPrivateRelayEmail: Type.Boolean({ description: "Apple sign-in: the e-mail is Apple's private relay address" }),
  message: Type.Null(),
  createdAt: TimestampSchema,
})
export type AuthResponse = Static<typeof AuthResponseSchema>

const TokenSchema = Type.String({ minLength: 1, maxLength: 256 })

export const VerifyEmailBodySchema = Type.Object({ token: TokenSchema })
export const ForgotPasswordBodySchema = Type.Object({ email: Type.String({ minLength: 1, maxLength: 254 }) })
export const ResetPasswordBodySchema = Type.Object({
  token: TokenSchema,
  newPassword: Type.String({ minLength: 8, maxLength: 128 }),
})

/** E-mail account maintenance answers (compat). */
export const MessageResponseSchema = Type.Object({ success: Type.Boolean(), message: Type.String() })
