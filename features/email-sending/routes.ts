// The app routes of e-mail sending: what the feature guarantees is in index.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify'
import { errors, present } from '../../platform/schemas/common.js'
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

const tags = ['Email Sending']

const emailSending: FastifyPluginAsyncTypebox = async (app) => {
  const strict = app.config.AUTH_MODE === 'strict'
  const deps: SendDeps = {
    db: app.db,
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
  // UUID). In strict mode, or when a bearer is sent anyway, it must be the owner's session.
  const ownerSession: preHandlerAsyncHookHandler = async function (request, reply) {
    if (strict || presentedToken(request)) await app.auth.sessionRequired.call(this, request, reply)
  }

  app.post(
    '/email-sending/send',
    {
      schema: {
        tags,
        summary: "Queue an e-mail from a client-callable template to the user's account address",
        body: SendEmailBodySchema,
        response: { 201: SendEmailResponseSchema, ...errors(400, 401, 403, 404, 422, 429, 503) },
      },
      config: { validate: checkSchedule },
      preHandler: app.auth.userScoped,
    },
    async (request, reply) => {
      const { userId, templateSlug, language, variables } = request.body
      const queued = await sendEmail(deps, {
        userId,
        templateSlug,
        language,
        variables: variables ? Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, v ?? ''])) : undefined,
        scheduledAt: scheduledAtOf.get(request)!,
      })
      return reply.code(201).send(queued)
    },
  )

  app.get(
    '/email-sending/:emailId',
    {
      schema: {
        tags,
        summary: 'The status of an e-mail',
        params: EmailIdParamsSchema,
        response: { 200: EmailStatusResponseSchema, ...errors(400, 401, 403, 404, 429) },
      },
      preHandler: ownerSession,
    },
    async (request) => getEmailStatus(app.db, request.params.emailId, request.identity?.userId),
  )

  app.delete(
    '/email-sending/:emailId',
    {
      schema: {
        tags,
        summary: 'Cancel an e-mail that is still pending (the row is kept)',
        params: EmailIdParamsSchema,
        response: { 200: CancelEmailResponseSchema, ...errors(400, 401, 403, 404, 409, 429) },
      },
      preHandler: ownerSession,
    },
    async (request) => cancelEmail(app.db, request.params.emailId, app.clock.now(), request.identity?.userId),
  )
}

export default emailSending
