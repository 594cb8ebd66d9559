// The app routes of e-mail sending: what the feature guarantees is in index.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify'
import { present } from '../../platform/schemas/common.js'
import {
  CancelEmailResponseSchema,
  EmailIdParamsSchema,
  EmailStatusResponseSchema,
  SendEmailBodySchema,
  SendEmailResponseSchema,
  type SendEmailBody,
} from './schemas.js'
import { presentedToken } from '../../platform/security/sessions.js'
import { cancelEmail, getEmailStatus, parseScheduledAt, sendEmail, type SendDeps } from './service.js'
import { routesOf } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'
import { EX } from '../../platform/openapi/examples.js'
import * as examples from './docs.js'

const emailSending: FastifyPluginAsyncTypebox = async (app) => {
  const route = routesOf(manifest)
  // The database is the request's game's, given with each call.
  const deps: Omit<SendDeps, 'db'> = {
    now: () => app.clock.now(),
    enabled: Boolean(app.config.SMTP_URL),
    maxPerUserPerHour: app.config.EMAIL_MAX_PER_USER_PER_HOUR,
  }
  const scheduledAtOf = new WeakMap<FastifyRequest, number>()

  // A bad scheduledAt is a validation error, and validation comes before the session.
  const checkSchedule = (request: FastifyRequest) => {
    const body = request.body as SendEmailBody
    scheduledAtOf.set(request, parseScheduledAt(present(body.scheduledAt), app.clock.now()))
  }

  // Status and cancel: no session in compat mode (the SDKs send none; the id is an unguessable
  // UUID). In strict mode (the request's game's), or when a bearer is sent anyway, it must be the owner's session.
  const ownerSession: preHandlerAsyncHookHandler = async function (request, reply) {
    if (request.game.settings.authMode === 'strict' || presentedToken(request))
      await app.auth.sessionRequired.call(this, request, reply)
  }

  app.post(
    '/email-sending/send',
    {
      schema: route.app({
        summary: "Queue an e-mail from a client-callable template to the user's account address",
        body: SendEmailBodySchema,
        response: { 201: SendEmailResponseSchema },
        errors: [403, 404, 422, 503],
        docs: {
          description:
            "User-scoped (compat mode: `userId` alone; strict mode: the user's bearer). Mails the user at their account address " +
            '(never an address from the request) from a client-callable template. `language` is required: when the template has ' +
            "no translation for it, its primary subtag (`de` for `de-AT`) is used, then the template's default language. " +
            '`variables` are strings, `null` counting as `""` (the newest Unity SDK sends it; values are HTML-escaped in the ' +
            'html part); declared defaults fill missing ones (the Unity ' +
            'SDK always sends `{}`). `scheduledAt` at most 1 year ahead (else 400); past means now. After the checks every route ' +
            'makes (validation, session, 404 `USER_NOT_FOUND`, 403 `USER_BANNED`), in order: 503 `EMAIL_DISABLED` (no SMTP ' +
            'configured), 404 `TEMPLATE_NOT_FOUND` (unknown or not client-callable), 422 `USER_HAS_NO_EMAIL`, 422 ' +
            '`MISSING_VARIABLES` (with `missingVariables`: declared, no value, no default), 429 `EMAIL_QUOTA_EXCEEDED` past ' +
            '`EMAIL_MAX_PER_USER_PER_HOUR` (default 10; account e-mails do not count), with the wait in `retryAfterSeconds`. 201 `{ id, status: "pending", scheduledAt }`.',
          request: {
            userId: EX.userId,
            templateSlug: 'weekly-report',
            language: 'de-AT',
            variables: { score: '4200' },
          },
          response: { id: EX.emailId, status: 'pending', scheduledAt: EX.now },
        },
      }),
      config: { validate: checkSchedule },
      preHandler: app.auth.userScoped,
    },
    async (request, reply) => {
      const { userId, templateSlug, language, variables } = request.body
      const queued = await sendEmail(
        { ...deps, db: request.db },
        {
          userId,
          templateSlug,
          language,
          variables: variables
            ? Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, v ?? '']))
            : undefined,
          scheduledAt: scheduledAtOf.get(request)!,
        },
      )
      return reply.code(201).send(queued)
    },
  )

  app.get(
    '/email-sending/:emailId',
    {
      schema: route.app({
        summary: 'The status of an e-mail',
        params: EmailIdParamsSchema,
        response: { 200: EmailStatusResponseSchema },
        errors: [403, 404],
        docs: {
          description: `The status of an e-mail: \`pending\` → \`processing\` → \`sent\` | \`failed\` (with \`errorReason\`), or \`cancelled\`. ${examples.STATUS_RULES}`,
          parameters: { emailId: EX.emailId },
          response: examples.status,
        },
      }),
      preHandler: ownerSession,
    },
    async (request) => getEmailStatus(request.db, request.params.emailId, request.identity?.userId),
  )

  app.delete(
    '/email-sending/:emailId',
    {
      schema: route.app({
        summary: 'Cancel an e-mail that is still pending (the row is kept)',
        params: EmailIdParamsSchema,
        response: { 200: CancelEmailResponseSchema },
        errors: [403, 404, 409],
        docs: {
          description: `Cancels an e-mail that is still pending; the row is kept for the operator. 409 \`CONFLICT\` when it is not pending. ${examples.STATUS_RULES}`,
          parameters: { emailId: EX.emailId },
          response: { id: EX.emailId, status: 'cancelled', message: 'Email cancelled' },
        },
      }),
      preHandler: ownerSession,
    },
    async (request) => cancelEmail(request.db, request.params.emailId, app.clock.now(), request.identity?.userId),
  )
}

export default emailSending
