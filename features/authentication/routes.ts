// The app routes of authentication: what the feature guarantees is in index.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors, present } from '../../platform/schemas/common.js'
import {
  AuthResponseSchema,
  ForgotPasswordBodySchema,
  MessageResponseSchema,
  ResetPasswordBodySchema,
  SigninBodySchema,
  SignupBodySchema,
  VerifyEmailBodySchema,
} from './schemas.js'
import { signin, signup, type AuthDeps } from './service.js'
import { forgotPassword, resetPassword, verifyEmail } from './email-accounts.js'

const tags = ['Authentication']
/** How an account signs up or in, as the sign-up and sign-in counters of the manifest label it. */
const accountKind = (type: string | null | undefined) =>
  type === 'EMAIL' ? 'email' : type === 'APPLE' ? 'apple' : type === 'GOOGLE' ? 'google' : 'anonymous'

const authentication: FastifyPluginAsyncTypebox<{ deps: AuthDeps }> = async (app, { deps }) => {
  const signedUp = app.metrics.counter('outpost_signups_total')
  const signedIn = app.metrics.counter('outpost_signins_total')
  app.post(
    '/user-management/signup',
    {
      schema: {
        tags,
        summary: 'Create an anonymous or e-mail account, or sign up with Apple or Google, and start a session',
        body: SignupBodySchema,
        response: { 201: AuthResponseSchema, 200: AuthResponseSchema, ...errors(400, 401, 403, 409, 429, 503) },
      },
    },
    async (request, reply) => {
      const outcome = await signup(deps, request.body)
      // The player the request named, for what reads it once the answer is sent (activity, contract §12).
      request.identity = { userId: outcome.body.userId, sessionId: null }
      if (outcome.status === 201) signedUp(accountKind(request.body.type))
      else signedIn(accountKind(request.body.type))
      return reply.code(outcome.status).send(outcome.body)
    },
  )

  app.post(
    '/user-management/signin',
    {
      schema: {
        tags,
        summary: 'Sign in with an anonymous token, e-mail and password, Apple or Google, or renew a session',
        body: SigninBodySchema,
        response: { 200: AuthResponseSchema, 201: AuthResponseSchema, ...errors(400, 401, 403, 404, 409, 429, 503) },
      },
    },
    async (request, reply) => {
      const outcome = await signin(deps, request.body)
      request.identity = { userId: outcome.body.userId, sessionId: null }
      const { refreshToken, type } = request.body
      if (outcome.status === 201) signedUp(accountKind(type))
      else signedIn(present(refreshToken) ? 'refresh' : accountKind(type))
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
