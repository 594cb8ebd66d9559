import type { NamedSchemas, OperationDocs } from '../../platform/openapi/index.js'
import { EX, page } from '../../platform/openapi/examples.js'
import {
  AdminEmailListSchema,
  AdminEmailSchema,
  EmailStatusResponseSchema,
  EmailTemplateListSchema,
  EmailTemplateSchema,
} from './schemas.js'
import { APP_PREFIX, ADMIN_PREFIX } from '../../platform/core/paths.js'

const APP = `${APP_PREFIX}/email-sending`
const ADMIN = ADMIN_PREFIX
const STATUS_RULES =
  "No session is needed in compat mode (the SDKs send none; the id is an unguessable UUID); in strict mode the owner's " +
  "session is required (403 `SESSION_FORBIDDEN` for another user's). Works whether or not SMTP is configured. 404 `EMAIL_NOT_FOUND`."
const status = {
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
const adminEmail = {
  ...status,
  recipient: 'ada@example.com',
  subject: 'Deine Woche in Outpost',
  account: false,
  nextAttemptAt: EX.now,
  updatedAt: '2026-11-22T10:30:04.000Z',
}
const template = {
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

export const docs: OperationDocs = {
  [`POST ${APP}/send`]: {
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
    request: { userId: EX.userId, templateSlug: 'weekly-report', language: 'de-AT', variables: { score: '4200' } },
    response: { id: EX.emailId, status: 'pending', scheduledAt: EX.now },
  },
  [`GET ${APP}/{emailId}`]: {
    description: `The status of an e-mail: \`pending\` → \`processing\` → \`sent\` | \`failed\` (with \`errorReason\`), or \`cancelled\`. ${STATUS_RULES}`,
    parameters: { emailId: EX.emailId },
    response: status,
  },
  [`DELETE ${APP}/{emailId}`]: {
    description: `Cancels an e-mail that is still pending; the row is kept for the operator. 409 \`CONFLICT\` when it is not pending. ${STATUS_RULES}`,
    parameters: { emailId: EX.emailId },
    response: { id: EX.emailId, status: 'cancelled', message: 'Email cancelled' },
  },
  [`GET ${ADMIN}/email-templates`]: {
    description:
      'The e-mail templates, oldest first, the system ones (`email-verification`, `password-reset`) included; paged by `limit` and `cursor`.',
    parameters: { limit: 50 },
    response: page([template]),
  },
  [`GET ${ADMIN}/email-templates/{slug}`]: {
    description: 'One template. 404 `TEMPLATE_NOT_FOUND`.',
    parameters: { slug: 'weekly-report' },
    response: template,
  },
  [`PUT ${ADMIN}/email-templates/{slug}`]: {
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
        en: { subject: 'Your week, {{name}}', html: '<p>You scored {{score}}.</p>', text: 'You scored {{score}}.' },
        de: { subject: 'Deine Woche, {{name}}', html: '<p>Du hast {{score}} Punkte.</p>' },
      },
    },
    response: template,
  },
  [`DELETE ${ADMIN}/email-templates/{slug}`]: {
    description: 'Deletes a template. System templates cannot be deleted: 409 `CONFLICT`. 404 `TEMPLATE_NOT_FOUND`.',
    parameters: { slug: 'weekly-report' },
    response: { slug: 'weekly-report', deleted: true },
  },
  [`POST ${ADMIN}/email-templates/{slug}/preview`]: {
    description:
      'Renders a template without sending it. `language` falls back like a send (absent: the default language); declared ' +
      'defaults fill missing variables; 422 `MISSING_VARIABLES` lists the ones with neither. 404 `TEMPLATE_NOT_FOUND`.',
    parameters: { slug: 'weekly-report' },
    request: { language: 'de', variables: { score: '4200' } },
    response: { language: 'de', subject: 'Deine Woche, player', html: '<p>Du hast 4200 Punkte.</p>', text: null },
  },
  [`GET ${ADMIN}/emails`]: {
    description:
      'The e-mail queue, newest first, optionally of one `status` and/or `userId`; paged by `limit` and `cursor`.',
    parameters: { status: 'failed', limit: 50 },
    response: page([{ ...adminEmail, status: 'failed', attempts: 5, errorReason: 'SMTP 550: mailbox unavailable' }]),
  },
  [`GET ${ADMIN}/emails/{emailId}`]: {
    description: 'One e-mail of the queue, with its recipient, subject and the next attempt. 404 `EMAIL_NOT_FOUND`.',
    parameters: { emailId: EX.emailId },
    response: adminEmail,
  },
}
