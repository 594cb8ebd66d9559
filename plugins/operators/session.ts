// The console's own session (API.md §10): sign in, who am I, sign out, change one's password, enroll
// a second factor. Writes made with the cookie need X-Requested-With: outpost-console (admin-auth.ts).
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../schemas/common.js'
import {
  PasswordChangeBodySchema,
  PasswordChangedSchema,
  SessionSchema,
  SignInBodySchema,
  SignedOutSchema,
  TotpConfirmBodySchema,
  TotpConfirmedSchema,
  TotpEnrollmentSchema,
} from '../../schemas/operators.js'
import { SESSION_COOKIE, SESSION_COOKIE_PATH } from '../core/admin-auth.js'
import { AppError } from '../core/errors.js'
import { toIso } from '../core/clock.js'
import { hashPassword } from '../core/passwords.js'
import { beginTotp, checkPassword, confirmTotp, endSession, setPassword, signIn, SESSION_MAX_MS } from './service.js'

const tags = ['Admin', 'Operators']
const security = [{ adminSession: [] }]

/** The session's operator, or a 403 for the admin key, which has no password and no second factor. */
function operatorOf(request: FastifyRequest) {
  const actor = request.adminActor
  if (!actor?.operatorId || !actor.sessionId)
    throw new AppError(403, 'FORBIDDEN', 'The admin key has no account of its own: sign in as an operator for this')
  return { operatorId: actor.operatorId, sessionId: actor.sessionId, username: actor.name }
}

/** The new password's hash and the checked current one, made before the write's transaction opens. */
const passwordChanges = new WeakMap<FastifyRequest, { hash: string; expected: string }>()

const sessionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const cookieOptions = (request: FastifyRequest) => ({
    path: SESSION_COOKIE_PATH,
    httpOnly: true,
    sameSite: 'strict' as const,
    // Behind a TLS-terminating proxy the scheme comes from X-Forwarded-Proto, trusted per TRUST_PROXY.
    secure: request.protocol === 'https',
  })
  const clearCookie = (request: FastifyRequest, reply: FastifyReply) =>
    reply.clearCookie(SESSION_COOKIE, cookieOptions(request))

  app.post(
    '/session',
    {
      schema: {
        tags,
        security: [],
        summary: 'Sign in as an operator',
        description:
          'Sets the `outpost_session` cookie (HttpOnly, SameSite=Strict, Path=/api/v1/admin, Secure over HTTPS): ' +
          'it lasts 2 hours without a request and 24 hours at most. A wrong name, password or TOTP code is one ' +
          'answer: 401 INVALID_CREDENTIALS. 10 failures for a name within 15 minutes: 429 TOO_MANY_ATTEMPTS ' +
          'until the oldest is 15 minutes old. `totp` is needed once the operator has enrolled a second factor. ' +
          'Every sign-in and failed sign-in is in the audit log.',
        body: SignInBodySchema,
        response: { 200: SessionSchema, ...errors(400, 401, 404, 429, 503) },
      },
    },
    async (request, reply) => {
      const session = await signIn(app.db, request.body, {
        address: request.ip,
        requestId: request.id,
        now: app.clock.now(),
      })
      reply.setCookie(SESSION_COOKIE, session.token, { ...cookieOptions(request), maxAge: SESSION_MAX_MS / 1000 })
      return { username: session.username, role: session.role, expiresAt: toIso(session.expiresAt) }
    },
  )

  app.get(
    '/session',
    {
      schema: {
        tags,
        security,
        summary: 'Who is signed in',
        description:
          'The operator of the session cookie and their role; with X-Admin-Key, `admin-key` as owner. ' +
          '401 UNAUTHORIZED when the session is missing, expired (2 h idle, 24 h at most) or revoked.',
        response: { 200: SessionSchema, ...errors(401, 404, 429) },
      },
    },
    async (request) => {
      const actor = request.adminActor!
      const expiresAt = actor.sessionId
        ? await app.db
            .selectFrom('operator_sessions')
            .select('expires_at')
            .where('id', '=', actor.sessionId)
            .executeTakeFirst()
        : undefined
      return {
        username: actor.name,
        role: actor.role,
        expiresAt: expiresAt ? toIso(Number(expiresAt.expires_at)) : null,
      }
    },
  )

  app.delete(
    '/session',
    {
      schema: {
        tags,
        security,
        summary: 'Sign out',
        description:
          'Ends this session and clears its cookie. Needs X-Requested-With: outpost-console (403 FORBIDDEN ' +
          'without it). With X-Admin-Key there is no session: 403 FORBIDDEN.',
        response: { 200: SignedOutSchema, ...errors(401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const { sessionId } = operatorOf(request)
      await endSession(app.db, sessionId)
      clearCookie(request, reply)
      return { signedOut: true as const }
    },
  )

  app.put(
    '/session/password',
    {
      schema: {
        tags,
        security,
        summary: 'Change your own password',
        description:
          'Needs the current password (a wrong one: 401 INVALID_CREDENTIALS). The new one has 12 to 1024 ' +
          'characters. Every other session of yours ends; this one stays. Needs X-Requested-With: outpost-console.',
        body: PasswordChangeBodySchema,
        response: { 200: PasswordChangedSchema, ...errors(400, 401, 403, 404, 409, 429, 503) },
      },
      // Both slow hashes run before the request's transaction opens: it would hold the database meanwhile.
      preHandler: async (request) => {
        const { operatorId } = operatorOf(request)
        const expected = await checkPassword(app.db, operatorId, request.body.currentPassword)
        if (!expected)
          throw new AppError(401, 'INVALID_CREDENTIALS', 'The current password is wrong: check it and try again')
        passwordChanges.set(request, { hash: await hashPassword(request.body.newPassword), expected })
      },
    },
    async (request) => {
      const { username, sessionId, operatorId } = operatorOf(request)
      const change = passwordChanges.get(request)!
      const before = await app.db
        .selectFrom('operator_sessions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('operator_id', '=', operatorId)
        .where('id', '!=', sessionId)
        .executeTakeFirst()
      await setPassword(app.db, username, change.hash, app.clock.now(), {
        keepSessionId: sessionId,
        expectedHash: change.expected,
      })
      return { changed: true as const, revokedSessions: Number(before?.n ?? 0) }
    },
  )

  app.post(
    '/session/totp',
    {
      schema: {
        tags,
        security,
        summary: 'Start enrolling a second factor (TOTP)',
        description:
          'Answers a new secret and its otpauth:// URI (RFC 6238: SHA-1, 6 digits, 30 s) for an authenticator ' +
          'app. Not active until confirmed with a code (POST /session/totp/confirm); until then sign-in needs ' +
          'no code. Enrolling again replaces a pending secret. Needs X-Requested-With: outpost-console.',
        response: { 200: TotpEnrollmentSchema, ...errors(401, 403, 404, 429) },
      },
    },
    async (request) => beginTotp(app.db, operatorOf(request).operatorId, app.clock.now()),
  )

  app.post(
    '/session/totp/confirm',
    {
      schema: {
        tags,
        security,
        summary: 'Confirm the second factor with a code',
        description:
          'Turns the pending secret on. A wrong code: 400 INVALID_TOTP; nothing pending: 409 CONFLICT. From then ' +
          'on sign-in needs `totp`, and each code is accepted once. An owner resets it from the command line ' +
          '(npm run operator -- reset-totp NAME).',
        body: TotpConfirmBodySchema,
        response: { 200: TotpConfirmedSchema, ...errors(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => {
      await confirmTotp(app.db, operatorOf(request).operatorId, request.body.code, app.clock.now())
      return { totpEnabled: true as const }
    },
  )
}

export default sessionRoutes
