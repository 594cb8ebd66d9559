// The console's own session: sign in, who am I, sign out, change one's password, enroll or
// replace a second factor (both changes need the current credentials). Writes made with the
// cookie need X-Requested-With: outpost-console (admin-auth.ts).
import cookie from '@fastify/cookie'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
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
import { routesOf } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'
import { serverWideOnly } from './server-wide.js'
import * as examples from './docs.js'

const security = [{ adminSession: [] }]

/** The session's operator, or a 403 for the admin key, which has no password and no second factor. */
function operatorOf(request: FastifyRequest) {
  const actor = request.adminActor
  if (!actor?.operatorId || !actor.sessionId)
    throw new AppError(403, 'FORBIDDEN', 'The admin key has no account of its own: sign in as an operator for this')
  return { operatorId: actor.operatorId, sessionId: actor.sessionId, username: actor.name }
}

const sessionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const route = routesOf(manifest, { adminSecurity: security })
  // reply.setCookie and clearCookie, for these routes only (the admin gate reads the Cookie header
  // itself): its hooks then run on the session routes, not on every request.
  await app.register(cookie)
  app.addHook('onRequest', serverWideOnly)
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
      schema: route.admin({
        security: [],
        summary: 'Sign in as an operator',
        body: SignInBodySchema,
        response: { 200: SessionSchema },
        errors: [404, 503],
        docs: {
          description:
            'Sets the `outpost_session` cookie (HttpOnly, SameSite=Strict, Path=/api/v1/admin, Secure over HTTPS): ' +
            'it lasts 2 hours without a request and 24 hours at most. A wrong name, password or TOTP code is one ' +
            'answer: 401 INVALID_CREDENTIALS. The 10th failure for a name within 15 minutes locks it for 15 minutes: ' +
            '429 TOO_MANY_ATTEMPTS, on every instance, however many attempts arrive at once (the password of a ' +
            'locked name is not even checked). `totp` is needed once the operator has enrolled a second factor. ' +
            'Every sign-in is in the audit log, and failed ones up to 20 per client address per 15 minutes ' +
            '(their actor is the name as sent: `actorVerified: false`).',
          request: { username: 'ada', password: 'correct horse battery staple', totp: '492039' },
          response: examples.session,
        },
      }),
    },
    async (request, reply) => {
      const session = await signIn(app.db, request.body, {
        address: request.ip,
        requestId: request.id,
        now: app.clock.now(),
      })
      reply.setCookie(SESSION_COOKIE, session.token, { ...cookieOptions(request), maxAge: SESSION_MAX_MS / 1000 })
      return {
        username: session.username,
        role: session.role,
        roles: session.roles,
        expiresAt: toIso(session.expiresAt),
      }
    },
  )

  app.get(
    '/session',
    {
      schema: route.admin({
        summary: 'Who is signed in',
        response: { 200: SessionSchema },
        errors: [404],
        docs: {
          description:
            'The operator of the session cookie, their role (in the game the path names; `default` without one, ' +
            'or the role they were given when they hold none there) and their `roles` per game (null for an ' +
            'owner); with X-Admin-Key, `admin-key` as owner. ' +
            '401 UNAUTHORIZED when the session is missing, expired (2 h idle, 24 h at most) or revoked.',
          response: examples.session,
        },
      }),
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
        roles: actor.role === 'owner' ? null : (actor.roles ?? null),
        expiresAt: expiresAt ? toIso(Number(expiresAt.expires_at)) : null,
      }
    },
  )

  app.delete(
    '/session',
    {
      schema: route.admin({
        summary: 'Sign out',
        response: { 200: SignedOutSchema },
        errors: [403, 404],
        docs: {
          description:
            'Ends this session and clears its cookie. Needs X-Requested-With: outpost-console (403 FORBIDDEN ' +
            'without it). With X-Admin-Key there is no session: 403 FORBIDDEN.',
          response: { signedOut: true },
        },
      }),
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
      schema: route.admin({
        summary: 'Change your own password',
        body: PasswordChangeBodySchema,
        response: { 200: PasswordChangedSchema },
        errors: [403, 404, 409, 503],
        docs: {
          description:
            'Needs the current password (a wrong one: 401 INVALID_CREDENTIALS). The new one has 12 to 1024 ' +
            'characters. Every other session of yours ends; this one stays. Needs X-Requested-With: outpost-console.',
          request: { currentPassword: 'correct horse battery staple', newPassword: 'a longer passphrase for 2027' },
          response: { changed: true, revokedSessions: 2 },
        },
      }),
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
      schema: route.admin({
        summary: 'Start enrolling or replacing your second factor (TOTP)',
        body: TotpBeginBodySchema,
        response: { 200: TotpEnrollmentSchema },
        errors: [403, 404, 503],
        docs: {
          description:
            'Answers a new secret and its otpauth:// URI (RFC 6238: SHA-1, 6 digits, 30 s) for an authenticator ' +
            'app. Needs `currentPassword` and, when a second factor is on, `currentCode` (a code of it, accepted ' +
            'once): a wrong one is 401 INVALID_CREDENTIALS, and counts toward the sign-in lockout of your name ' +
            '(429 TOO_MANY_ATTEMPTS). The new secret is not active until confirmed with a code ' +
            '(POST /session/totp/confirm); until then the current factor, if any, stays. Enrolling again ' +
            'replaces a pending secret. Needs X-Requested-With: outpost-console.',
          request: { currentPassword: 'correct horse battery staple', currentCode: '492039' },
          response: {
            secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
            uri: 'otpauth://totp/Outpost:ada?issuer=Outpost&secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30',
          },
        },
      }),
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
      schema: route.admin({
        summary: 'Confirm the second factor with a code',
        body: TotpConfirmBodySchema,
        response: { 200: TotpConfirmedSchema },
        errors: [403, 404, 409],
        docs: {
          description:
            'Turns the pending secret on, replacing the factor before it. A wrong code: 400 INVALID_TOTP; nothing ' +
            'pending: 409 CONFLICT. Every other session of yours ends; this one stays. From then on sign-in needs ' +
            '`totp`, and each code is accepted once. An owner resets it from the command line ' +
            "(npm run operator -- reset-totp NAME), which ends the operator's sessions.",
          request: { code: '492039' },
          response: { totpEnabled: true, revokedSessions: 1 },
        },
      }),
    },
    async (request) => ({
      totpEnabled: true as const,
      revokedSessions: await confirmTotp(app.db, operatorOf(request), request.body.code, app.clock.now()),
    }),
  )
}

export default sessionRoutes
