// The console's own session: sign in, who am I, sign out, change one's password, enroll or
// replace a second factor (both changes need the current credentials). Writes made with the
// cookie need X-Requested-With: outpost-console (admin-auth.ts).
import cookie from '@fastify/cookie'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../platform/schemas/common.js'
import {
  PasswordChangeBodySchema,
  PasswordChangedSchema,
  SessionSchema,
  SignInBodySchema,
  SignedOutSchema,
  TotpBeginBodySchema,
  TotpConfirmBodySchema,
  TotpConfirmedSchema,
  TotpEnrollmentSchema,
} from './schemas.js'
import { SESSION_COOKIE, SESSION_COOKIE_PATH } from '../../platform/security/admin-auth.js'
import { AppError } from '../../platform/core/errors.js'
import { toIso } from '../../platform/core/clock.js'
import { hashPassword } from '../../platform/security/passwords.js'
import { endSession, setPassword, SESSION_MAX_MS } from './service.js'
import { reauthenticate, signIn } from './sign-in.js'
import { beginTotp, confirmTotp } from './second-factor.js'

const tags = ['Admin', 'Operators']
const security = [{ adminSession: [] }]

/** The session's operator, or a 403 for the admin key, which has no password and no second factor. */
function operatorOf(request: FastifyRequest) {
  const actor = request.adminActor
  if (!actor?.operatorId || !actor.sessionId)
    throw new AppError(403, 'FORBIDDEN', 'The admin key has no account of its own: sign in as an operator for this')
  return { operatorId: actor.operatorId, sessionId: actor.sessionId, username: actor.name }
}

const sessionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // reply.setCookie and clearCookie, for these routes only (the admin gate reads the Cookie header
  // itself): its hooks then run on the session routes, not on every request.
  await app.register(cookie)
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
        body: PasswordChangeBodySchema,
        response: { 200: PasswordChangedSchema, ...errors(400, 401, 403, 404, 409, 429, 503) },
      },
      // Both slow hashes run before the request's transaction opens: it would hold the database meanwhile.
      preHandler: async (request) => {
        const { operatorId } = operatorOf(request)
        const expected = await reauthenticate(
          app.db,
          operatorId,
          { password: request.body.currentPassword, needsTotp: false },
          app.clock.now(),
        )
        // Made before the write's transaction opens: the new hash and the checked current one.
        request.preparedPassword = { hash: await hashPassword(request.body.newPassword), expected }
      },
    },
    async (request) => {
      const { username, sessionId, operatorId } = operatorOf(request)
      const change = request.preparedPassword!
      const before = await app.db
        .selectFrom('operator_sessions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('operator_id', '=', operatorId)
        .where('id', '!=', sessionId)
        .executeTakeFirst()
      await setPassword(app.db, username, change.hash, app.clock.now(), {
        keepSessionId: sessionId,
        expectedHash: change.expected ?? undefined,
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
        summary: 'Start enrolling or replacing your second factor (TOTP)',
        body: TotpBeginBodySchema,
        response: { 200: TotpEnrollmentSchema, ...errors(400, 401, 403, 404, 429, 503) },
      },
      // The slow password check runs before the request's transaction opens.
      preHandler: async (request) => {
        const { currentPassword, currentCode } = request.body
        await reauthenticate(
          app.db,
          operatorOf(request).operatorId,
          { password: currentPassword, totp: currentCode, needsTotp: true },
          app.clock.now(),
        )
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
        body: TotpConfirmBodySchema,
        response: { 200: TotpConfirmedSchema, ...errors(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => ({
      totpEnabled: true as const,
      revokedSessions: await confirmTotp(app.db, operatorOf(request), request.body.code, app.clock.now()),
    }),
  )
}

export default sessionRoutes
