import type { NamedSchemas } from '../../platform/openapi/index.js'
import { EX } from '../../platform/openapi/examples.js'
import {
  AdminEmailListSchema,
  AdminEmailSchema,
  EmailStatusResponseSchema,
  EmailTemplateListSchema,
  EmailTemplateSchema,
} from './schemas.js'

export const STATUS_RULES =
  "No session is needed in compat mode (the SDKs send none; the id is an unguessable UUID); in strict mode the owner's " +
  "session is required (403 `SESSION_FORBIDDEN` for another user's). Works whether or not SMTP is configured. 404 `EMAIL_NOT_FOUND`."
export const status = {
  id: EX.emailId,
  status: 'sent',
  templateSlug: 'weekly-report',
  userId: EX.userId,
  language: 'de',
  scheduledAt: EX.now,
  processedAt: '2026-11-22T10:30:04.000Z',
  attempts: 1,
  errorReason: null,
  createdAt: EX.now,
}
export const adminEmail = {
  ...status,
  recipient: 'ada@example.com',
  subject: 'Deine Woche in Outpost',
  account: false,
  nextAttemptAt: EX.now,
  updatedAt: '2026-11-22T10:30:04.000Z',
}
export const template = {
  slug: 'weekly-report',
  defaultLanguage: 'en',
  clientCallable: true,
  system: false,
  variables: { name: 'player', score: null },
  translations: {
    en: { subject: 'Your week, {{name}}', html: '<p>You scored {{score}}.</p>', text: 'You scored {{score}}.' },
    de: { subject: 'Deine Woche, {{name}}', html: '<p>Du hast {{score}} Punkte.</p>', text: null },
  },
  createdAt: EX.earlier,
  updatedAt: EX.now,
}

export const components: NamedSchemas = {
  EmailStatus: EmailStatusResponseSchema,
  EmailTemplate: EmailTemplateSchema,
  EmailTemplatePage: EmailTemplateListSchema,
  QueuedEmail: AdminEmailSchema,
  QueuedEmailPage: AdminEmailListSchema,
}
