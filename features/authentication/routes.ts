// The app routes of authentication: what the feature guarantees is in index.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { present } from '../../platform/schemas/common.js'
import {
  AuthResponseSchema,
  ForgotPasswordBodySchema,
  MessageResponseSchema,
  ResetPasswordBodySchema,
  SigninBodySchema,
  SignupBodySchema,
  VerifyEmailBodySchema,
} from './schemas.js'
import { signin, signup, type AppAuthDeps, type AuthDeps } from './service.js'
import { forgotPassword, resetPassword, verifyEmail } from './email-accounts.js'
import { routesOf } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'
import { EX } from '../../platform/openapi/examples.js'
import * as examples from './docs.js'

/** How an account signs up or in, as the sign-up and sign-in counters of the manifest label it. */
const accountKind = (type: string | null | undefined) =>
  type === 'EMAIL' ? 'email' : type === 'APPLE' ? 'apple' : type === 'GOOGLE' ? 'google' : 'anonymous'

const authentication: FastifyPluginAsyncTypebox<{ deps: Omit<AppAuthDeps, 'db'> }> = async (app, { deps: shared }) => {
  const route = routesOf(manifest)
  // Each call acts on the request's game's database, with its settings (contract §14): its Apple and
  // Google audiences.
  const depsOf = (request: FastifyRequest): AuthDeps => ({ ...shared, db: request.db, settings: request.game.settings })
  const signedUp = app.metrics.counter('outpost_signups_total')
  const signedIn = app.metrics.counter('outpost_signins_total')
  app.post(
    '/user-management/signup',
    {
      schema: route.app({
        summary: 'Create an anonymous or e-mail account, or sign up with Apple or Google, and start a session',
        body: SignupBodySchema,
        response: { 201: AuthResponseSchema, 200: AuthResponseSchema },
        errors: [403, 409, 503],
        docs: {
          description:
            'Creates a user and its first session; answers with the auth response (compat: every field present, `null` ' +
            'where it does not apply; `username` and `displayName` are always equal).\n\n' +
            '- `type` `ANONYMOUS` (the default), 201: the name is `username` (compat) or `displayName` (if both, `username` ' +
            'wins), 1–50 characters after trimming, no control characters; without one a name like `Player-4821` is generated. ' +
            '`anonymousToken` is optional: a client token of 8–64 characters of `[A-Za-z0-9_-]` is used as given (409 `CONFLICT` ' +
            'if another account has it); without one the server issues a 32-character token. Store it: signing in with it ' +
            'restores the account.\n' +
            '- `type` `EMAIL`, 201: `email` (≤ 254, unique case-insensitively: 409 `USER_ALREADY_EXISTS`) and `password` ' +
            '(8–128 characters). `isVerified` starts false; with SMTP configured a verification mail (token valid 24 h) is queued.\n' +
            examples.SOCIAL +
            '\n\n`refreshToken` is null unless `includeRefreshToken: true`. 503 `SERVICE_UNAVAILABLE` when the password hashing ' +
            'queue is full (retry later).',
          request: { type: 'ANONYMOUS', username: 'Player-4821' },
          response: examples.auth,
          status: 201,
        },
      }),
    },
    async (request, reply) => {
      const outcome = await signup(depsOf(request), request.body)
      // The player the request named, for what reads it once the answer is sent (activity, contract §12).
      request.identity = { userId: outcome.body.userId, sessionId: null }
      if (outcome.status === 201) signedUp(accountKind(request.body.type), request.game.id)
      else signedIn(accountKind(request.body.type), request.game.id)
      return reply.code(outcome.status).send(outcome.body)
    },
  )

  app.post(
    '/user-management/signin',
    {
      schema: route.app({
        summary: 'Sign in with an anonymous token, e-mail and password, Apple or Google, or renew a session',
        body: SigninBodySchema,
        response: { 200: AuthResponseSchema, 201: AuthResponseSchema },
        errors: [403, 404, 409, 503],
        docs: {
          description:
            'Signs in and starts a new session; 200 with the auth response.\n\n' +
            '- `{ anonymousToken }` (type `ANONYMOUS`, the default): an unknown token is 404 `USER_NOT_FOUND` with ' +
            '`authStatus: "USER_NOT_FOUND"` in the error body.\n' +
            '- `{ type: "EMAIL", email, password }`: a wrong e-mail or password is 401 `INVALID_CREDENTIALS` with ' +
            '`authStatus: "INVALID_CREDENTIALS"` (one answer for both). After 10 failures for one account within 15 minutes, ' +
            'further attempts are 429 `TOO_MANY_ATTEMPTS` for 15 minutes, the wait in `retryAfterSeconds` (no `Retry-After` ' +
            'header: the Unity and Unreal SDKs would wait it out and send the password again).\n' +
            '- `{ refreshToken }`: renews a session. The refresh token is single-use and a new one is returned; reusing a spent ' +
            'one revokes that token family. Unknown, expired, spent or revoked: 401 `SESSION_REQUIRED`.\n' +
            examples.SOCIAL +
            '\n\nA banned user is refused with 403 `USER_BANNED`. 503 `SERVICE_UNAVAILABLE` when the password hashing queue is full.',
          request: { anonymousToken: EX.anonymousToken },
          response: examples.auth,
        },
      }),
    },
    async (request, reply) => {
      const outcome = await signin(depsOf(request), request.body)
      request.identity = { userId: outcome.body.userId, sessionId: null }
      const { refreshToken, type } = request.body
      if (outcome.status === 201) signedUp(accountKind(type), request.game.id)
      else signedIn(present(refreshToken) ? 'refresh' : accountKind(type), request.game.id)
      return reply.code(outcome.status).send(outcome.body)
    },
  )

  app.post(
    '/user-management/verify-email',
    {
      schema: route.app({
        summary: 'Mark an e-mail account verified with the token from its verification mail',
        body: VerifyEmailBodySchema,
        response: { 200: MessageResponseSchema },
        docs: {
          description:
            'Marks an e-mail account verified with the single-use token from its verification mail (valid 24 h). ' +
            'An unknown, used or expired token is 400 `INVALID_TOKEN`. Answers `{ success: true, message }` (compat).',
          request: { token: 'vT9kQ2mX7pL4sN1rW8yB3cF6hD0gJ5eA' },
          response: { success: true, message: 'E-mail verified' },
        },
      }),
    },
    async (request) => verifyEmail(depsOf(request), request.body.token),
  )

  app.post(
    '/user-management/forgot-password',
    {
      schema: route.app({
        summary: 'Mail a password reset link (always 200: no account enumeration)',
        body: ForgotPasswordBodySchema,
        response: { 200: MessageResponseSchema },
        docs: {
          description:
            'Always 200, whether or not an account has this address (no account enumeration). When it has one and SMTP is ' +
            'configured, a reset mail with a single-use token valid 1 hour is queued.',
          request: { email: 'ada@example.com' },
          response: { success: true, message: 'If an account exists for this address, a reset e-mail is on its way' },
        },
      }),
    },
    async (request) => forgotPassword(depsOf(request), request.body.email),
  )

  app.post(
    '/user-management/reset-password',
    {
      schema: route.app({
        summary: 'Set a new password with the token from the reset mail; revokes every session',
        body: ResetPasswordBodySchema,
        response: { 200: MessageResponseSchema },
        errors: [503],
        docs: {
          description:
            'Sets a new password (8–128 characters) with the token from the reset mail and revokes every session of the user: ' +
            'sign in again afterwards. A bad, used or expired token is 400 `INVALID_TOKEN`. 503 `SERVICE_UNAVAILABLE` when the ' +
            'password hashing queue is full.',
          request: { token: 'rS2dF5gH8jK1lZ4xC7vB0nM3qW6eR9tY', newPassword: 'correct horse battery' },
          response: { success: true, message: 'Password changed; sign in again' },
        },
      }),
    },
    async (request) => resetPassword(depsOf(request), request.body.token, request.body.newPassword),
  )
}

export default authentication
