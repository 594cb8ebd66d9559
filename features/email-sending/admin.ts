// The operator's side of e-mail: templates (list, read, create/replace, delete,
// preview) and the queue (list by status or user, one e-mail).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { AdminListQuerySchema, UuidSchema, present } from '../../platform/schemas/common.js'
import {
  AdminEmailListSchema,
  AdminEmailQuerySchema,
  AdminEmailSchema,
  EmailTemplateListSchema,
  EmailTemplateSchema,
  PreviewBodySchema,
  PreviewResponseSchema,
  PutTemplateBodySchema,
  TemplateDeletedSchema,
  TemplateSlugParamsSchema,
} from './schemas.js'
import { getAdminEmail, listEmails } from './service.js'
import { deleteTemplate, getTemplate, listTemplates, previewTemplate, putTemplate, toApiTemplate } from './templates.js'
import { routesOf } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'
import { EX, page } from '../../platform/openapi/examples.js'
import * as examples from './docs.js'

const emailSendingAdmin: FastifyPluginAsyncTypebox = async (app) => {
  const route = routesOf(manifest)
  app.get(
    '/email-templates',
    {
      schema: route.admin({
        summary: 'List e-mail templates (oldest first)',
        querystring: AdminListQuerySchema,
        response: { 200: EmailTemplateListSchema },
        docs: {
          description:
            'The e-mail templates, oldest first, the system ones (`email-verification`, `password-reset`) included; paged by `limit` and `cursor`.',
          parameters: { limit: 50 },
          response: page([examples.template]),
        },
      }),
    },
    async (request) => listTemplates(request.db, request.query),
  )

  app.get(
    '/email-templates/:slug',
    {
      schema: route.admin({
        summary: 'One e-mail template',
        params: TemplateSlugParamsSchema,
        response: { 200: EmailTemplateSchema },
        errors: [404],
        docs: {
          description: 'One template. 404 `TEMPLATE_NOT_FOUND`.',
          parameters: { slug: 'weekly-report' },
          response: examples.template,
        },
      }),
    },
    async (request) => toApiTemplate(await getTemplate(request.db, request.params.slug)),
  )

  app.put(
    '/email-templates/:slug',
    {
      schema: route.admin({
        summary: 'Create or replace an e-mail template',
        params: TemplateSlugParamsSchema,
        body: PutTemplateBodySchema,
        response: { 200: EmailTemplateSchema },
        errors: [413],
        docs: {
          description:
            'Creates or replaces a template. Slug: 1–64 of letters, digits, `_`, `.`, `-`. `translations` maps languages to ' +
            '`{ subject (one line, ≤ 998), html, text? }` (1–50 languages, `defaultLanguage` among them); `variables` declares ' +
            'the `{{name}}` placeholders with a default value or `null` for none; `clientCallable` (default false): only such ' +
            'templates may be sent through the app API. System templates stay editable but cannot be made client-callable (400). ' +
            '413 for a body over the route limit.',
          parameters: { slug: 'weekly-report' },
          request: {
            defaultLanguage: 'en',
            clientCallable: true,
            variables: { name: 'player', score: null },
            translations: {
              en: {
                subject: 'Your week, {{name}}',
                html: '<p>You scored {{score}}.</p>',
                text: 'You scored {{score}}.',
              },
              de: { subject: 'Deine Woche, {{name}}', html: '<p>Du hast {{score}} Punkte.</p>' },
            },
          },
          response: examples.template,
        },
      }),
    },
    async (request) => toApiTemplate(await putTemplate(request.db, request.params.slug, request.body, app.clock.now())),
  )

  app.delete(
    '/email-templates/:slug',
    {
      schema: route.admin({
        summary: 'Delete an e-mail template (system templates cannot be deleted)',
        params: TemplateSlugParamsSchema,
        response: { 200: TemplateDeletedSchema },
        errors: [404, 409],
        docs: {
          description:
            'Deletes a template. System templates cannot be deleted: 409 `CONFLICT`. 404 `TEMPLATE_NOT_FOUND`.',
          parameters: { slug: 'weekly-report' },
          response: { slug: 'weekly-report', deleted: true },
        },
      }),
    },
    async (request) => {
      await deleteTemplate(request.db, request.params.slug)
      return { slug: request.params.slug, deleted: true as const }
    },
  )

  app.post(
    '/email-templates/:slug/preview',
    {
      schema: route.admin({
        summary: 'Render a template with the given variables (declared defaults fill the missing ones)',
        params: TemplateSlugParamsSchema,
        body: PreviewBodySchema,
        response: { 200: PreviewResponseSchema },
        errors: [404, 422],
        docs: {
          description:
            'Renders a template without sending it. `language` falls back like a send (absent: the default language); declared ' +
            'defaults fill missing variables; 422 `MISSING_VARIABLES` lists the ones with neither. 404 `TEMPLATE_NOT_FOUND`.',
          parameters: { slug: 'weekly-report' },
          request: { language: 'de', variables: { score: '4200' } },
          response: { language: 'de', subject: 'Deine Woche, player', html: '<p>Du hast 4200 Punkte.</p>', text: null },
        },
      }),
    },
    async (request) =>
      previewTemplate(request.db, request.params.slug, {
        language: present(request.body.language),
        variables: request.body.variables ?? undefined,
      }),
  )

  app.get(
    '/emails',
    {
      schema: route.admin({
        summary: 'The e-mail queue, newest first, by status and/or user',
        querystring: AdminEmailQuerySchema,
        response: { 200: AdminEmailListSchema },
        docs: {
          description:
            'The e-mail queue, newest first, optionally of one `status` and/or `userId`; paged by `limit` and `cursor`.',
          parameters: { status: 'failed', limit: 50 },
          response: page([
            { ...examples.adminEmail, status: 'failed', attempts: 5, errorReason: 'SMTP 550: mailbox unavailable' },
          ]),
        },
      }),
    },
    async (request) => listEmails(request.db, request.query),
  )

  app.get(
    '/emails/:emailId',
    {
      schema: route.admin({
        summary: 'One e-mail of the queue',
        params: Type.Object({ emailId: UuidSchema }),
        response: { 200: AdminEmailSchema },
        errors: [404],
        docs: {
          description:
            'One e-mail of the queue, with its recipient, subject and the next attempt. 404 `EMAIL_NOT_FOUND`.',
          parameters: { emailId: EX.emailId },
          response: examples.adminEmail,
        },
      }),
    },
    async (request) => getAdminEmail(request.db, request.params.emailId),
  )
}

export default emailSendingAdmin
