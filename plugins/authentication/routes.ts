// The app routes of authentication: what the feature guarantees is in index.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors, present } from '../../schemas/common.js'
import {
  AuthResponseSchema,
  ForgotPasswordBodySchema,
  MessageResponseSchema,
  ResetPasswordBodySchema,
  SigninBodySchema,
  SignupBodySchema,
  VerifyEmailBodySchema,
} from '../../schemas/authentication.js'
import { signin, signup, type AuthDeps } from './service.js'
import type { AccountKind } from '../core/metrics.js'
import { forgotPassword, resetPassword, verifyEmail } from './email-accounts.js'

const tags = ['Authentication']
const accountKind = (type: string | null | undefined): AccountKind =>
  type === 'EMAIL' ? 'email' : type === 'APPLE' ? 'apple' : type === 'GOOGLE' ? 'google' : 'anonymous'

const authentication: FastifyPluginAsyncTypebox<{ deps: AuthDeps }> = async (app, { deps }) => {
  app.post(
    '/user-management/signup',
    {
      schema: {
        tags,
        summary: 'Create an anonymous or e-mail account, or sign up with Apple or Google, and start a session',
        description:
          'type ANONYMOUS (default): username or displayName (1–50 characters after trimming; generated when absent), ' +
          'optional client anonymousToken (8–64 of [A-Za-z0-9_-]; 409 CONFLICT if in use), else one is issued. ' +
          'type EMAIL: email (unique case-insensitively, 409 USER_ALREADY_EXISTS) and password (8–128). ' +
          'type APPLE (appleIdentityToken, appleFirstName?, appleLastName?, username?) and GOOGLE ' +
          '(googleAuthorizationCode ≤ 2000, googleRedirectUri?, username?): the same as sign-in — the user bound to the ' +
          'Apple or Google account is found (200) or created (201). Provider errors: 400 APPLE_NOT_CONFIGURED / ' +
          'GOOGLE_NOT_CONFIGURED, 401 INVALID_APPLE_TOKEN / INVALID_GOOGLE_CODE (authStatus INVALID_CREDENTIALS), ' +
          '409 APPLE_EMAIL_CONFLICT / USER_ALREADY_EXISTS (the e-mail belongs to another account), 503 with Retry-After ' +
          'when the provider is unreachable. includeRefreshToken: true adds a refresh token.',
        body: SignupBodySchema,
        response: { 201: AuthResponseSchema, 200: AuthResponseSchema, ...errors(400, 401, 403, 409, 429, 503) },
      },
    },
    async (request, reply) => {
      const outcome = await signup(deps, request.body)
      if (outcome.status === 201) app.metrics.signedUp(accountKind(request.body.type))
      else app.metrics.signedIn(accountKind(request.body.type))
      return reply.code(outcome.status).send(outcome.body)
    },
  )

  app.post(
    '/user-management/signin',
    {
      schema: {
        tags,
        summary: 'Sign in with an anonymous token, e-mail and password, Apple or Google, or renew a session',
        description:
          'anonymousToken: unknown → 404 USER_NOT_FOUND (authStatus USER_NOT_FOUND). type EMAIL: wrong e-mail or ' +
          'password → 401 INVALID_CREDENTIALS; 10 failures in 15 minutes → 429 TOO_MANY_ATTEMPTS. refreshToken: ' +
          'single-use, rotated; unknown, spent or revoked → 401 SESSION_REQUIRED. type APPLE / GOOGLE: the same ' +
          'bodies as sign-up and the same result — the user is found (200) or created (201); errors as for sign-up. ' +
          'A banned user → 403 USER_BANNED.',
        body: SigninBodySchema,
        response: { 200: AuthResponseSchema, 201: AuthResponseSchema, ...errors(400, 401, 403, 404, 409, 429, 503) },
      },
    },
    async (request, reply) => {
      const outcome = await signin(deps, request.body)
      const { refreshToken, type } = request.body
      if (outcome.status === 201) app.metrics.signedUp(accountKind(type))
      else app.metrics.signedIn(present(refreshToken) ? 'refresh' : accountKind(type))
      return reply.code(outcome.status).send(outcome.body)
    },
  )

  app.post(
    '/user-management/verify-email',
    {
      schema: {
        tags,
        summary: 'Mark an e-mail account verified with the token from its verification mail',
        body: VerifyEmailBodySchema,
        response: { 200: MessageResponseSchema, ...errors(400, 401, 429) },
      },
    },
    async (request) => verifyEmail(deps, request.body.token),
  )

  app.post(
    '/user-management/forgot-password',
    {
      schema: {
        tags,
        summary: 'Mail a password reset link (always 200: no account enumeration)',
        body: ForgotPasswordBodySchema,
        response: { 200: MessageResponseSchema, ...errors(400, 401, 429) },
      },
    },
    async (request) => forgotPassword(deps, request.body.email),
  )

  app.post(
    '/user-management/reset-password',
    {
      schema: {
        tags,
        summary: 'Set a new password with the token from the reset mail; revokes every session',
        body: ResetPasswordBodySchema,
        response: { 200: MessageResponseSchema, ...errors(400, 401, 429, 503) },
      },
    },
    async (request) => resetPassword(deps, request.body.token, request.body.newPassword),
  )
}

export default authentication
