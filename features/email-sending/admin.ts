// The operator's side of e-mail: templates (list, read, create/replace, delete,
// preview) and the queue (list by status or user, one e-mail).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { AdminListQuerySchema, UuidSchema, errors, present } from '../../platform/schemas/common.js'
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

const tags = ['Admin', 'Email Sending']
const security = [{ adminKey: [] }]

const emailSendingAdmin: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/email-templates',
    {
      schema: {
        tags,
        security,
        summary: 'List e-mail templates (oldest first)',
        querystring: AdminListQuerySchema,
        response: { 200: EmailTemplateListSchema, ...errors(400, 401, 429) },
      },
    },
    async (request) => listTemplates(app.db, request.query),
  )

  app.get(
    '/email-templates/:slug',
    {
      schema: {
        tags,
        security,
        summary: 'One e-mail template',
        params: TemplateSlugParamsSchema,
        response: { 200: EmailTemplateSchema, ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => toApiTemplate(await getTemplate(app.db, request.params.slug)),
  )

  app.put(
    '/email-templates/:slug',
    {
      schema: {
        tags,
        security,
        summary: 'Create or replace an e-mail template',
        params: TemplateSlugParamsSchema,
        body: PutTemplateBodySchema,
        response: { 200: EmailTemplateSchema, ...errors(400, 401, 413, 429) },
      },
    },
    async (request) => toApiTemplate(await putTemplate(app.db, request.params.slug, request.body, app.clock.now())),
  )

  app.delete(
    '/email-templates/:slug',
    {
      schema: {
        tags,
        security,
        summary: 'Delete an e-mail template (system templates cannot be deleted)',
        params: TemplateSlugParamsSchema,
        response: { 200: TemplateDeletedSchema, ...errors(400, 401, 404, 409, 429) },
      },
    },
    async (request) => {
      await deleteTemplate(app.db, request.params.slug)
      return { slug: request.params.slug, deleted: true as const }
    },
  )

  app.post(
    '/email-templates/:slug/preview',
    {
      schema: {
        tags,
        security,
        summary: 'Render a template with the given variables (declared defaults fill the missing ones)',
        params: TemplateSlugParamsSchema,
        body: PreviewBodySchema,
        response: { 200: PreviewResponseSchema, ...errors(400, 401, 404, 422, 429) },
      },
    },
    async (request) =>
      previewTemplate(app.db, request.params.slug, {
        language: present(request.body.language),
        variables: request.body.variables ?? undefined,
      }),
  )

  app.get(
    '/emails',
    {
      schema: {
        tags,
        security,
        summary: 'The e-mail queue, newest first, by status and/or user',
        querystring: AdminEmailQuerySchema,
        response: { 200: AdminEmailListSchema, ...errors(400, 401, 429) },
      },
    },
    async (request) => listEmails(app.db, request.query),
  )

  app.get(
    '/emails/:emailId',
    {
      schema: {
        tags,
        security,
        summary: 'One e-mail of the queue',
        params: Type.Object({ emailId: UuidSchema }),
        response: { 200: AdminEmailSchema, ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => getAdminEmail(app.db, request.params.emailId),
  )
}

export default emailSendingAdmin
