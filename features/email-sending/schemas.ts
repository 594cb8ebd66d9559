import { Type, type Static } from '@sinclair/typebox'
import { Nullable, OptionalString, TimestampSchema, UuidSchema, StringEnum } from '../../platform/schemas/common.js'

const NullableString = Type.Union([Type.String(), Type.Null()])
const NullableTimestamp = Type.Union([TimestampSchema, Type.Null()])

export const SLUG_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'
export const LANGUAGE_PATTERN = '^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$'
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/
export const MAX_VARIABLES = 100
export const MAX_VARIABLE_LENGTH = 10_000

const VariableValuesSchema = Type.Record(Type.String(), Type.String({ maxLength: MAX_VARIABLE_LENGTH }), {
  maxProperties: MAX_VARIABLES,
  description: 'Values of the template variables (strings); declared defaults fill the missing ones',
})

/**
 * The app's send takes `null` for a value too, as an empty string: the newest Unity SDK writes a
 * null C# string as `null` (`{"variables":{"nil":null,"empty":""}}`). The admin preview stays strict.
 */
const SendVariableValuesSchema = Type.Record(
  Type.String(),
  Type.Union([Type.String({ maxLength: MAX_VARIABLE_LENGTH }), Type.Null()]),
  {
    maxProperties: MAX_VARIABLES,
    description:
      'Values of the template variables (strings; `null` counts as `""`); declared defaults fill the missing ones',
  },
)

export const EmailStatusSchema = StringEnum(['pending', 'processing', 'sent', 'failed', 'cancelled'] as const)

// ---- app API ---------------------------------------------------------------------------------

export const SendEmailBodySchema = Type.Object({
  userId: UuidSchema,
  templateSlug: Type.String({ minLength: 1, maxLength: 64 }),
  language: Type.String({
    minLength: 1,
    maxLength: 35,
    // Required: the fallback applies to a language the template lacks, not to a missing one.
    description:
      'Required. Language tag of the e-mail (e.g. `de-AT`); when the template has no translation for it, its primary subtag (`de`) is used, then the template default language',
  }),
  variables: Nullable(SendVariableValuesSchema),
  scheduledAt: OptionalString({ format: 'date-time', description: 'ISO 8601, at most 1 year ahead; past means now' }),
})
export type SendEmailBody = Static<typeof SendEmailBodySchema>

export const SendEmailResponseSchema = Type.Object({
  id: Type.String(),
  status: Type.Literal('pending'),
  scheduledAt: TimestampSchema,
})

export const EmailIdParamsSchema = Type.Object({ emailId: UuidSchema })

export const EmailStatusResponseSchema = Type.Object({
  id: Type.String(),
  status: EmailStatusSchema,
  templateSlug: Type.String(),
  userId: Type.String(),
  language: Type.String(),
  scheduledAt: TimestampSchema,
  processedAt: NullableTimestamp,
  attempts: Type.Integer(),
  errorReason: NullableString,
  createdAt: TimestampSchema,
})
export type EmailStatusResponse = Static<typeof EmailStatusResponseSchema>

export const CancelEmailResponseSchema = Type.Object({
  id: Type.String(),
  status: Type.Literal('cancelled'),
  message: Type.String(),
})

// ---- admin: templates ------------------------------------------------------------------------

export const TranslationSchema = Type.Object({
  subject: Type.String({ minLength: 1, maxLength: 998, pattern: '^[^\\r\\n]*$' }),
  html: Type.String({ minLength: 1, maxLength: 100_000 }),
  text: OptionalString({ maxLength: 100_000 }),
})

export const TemplateSlugParamsSchema = Type.Object({ slug: Type.String({ pattern: SLUG_PATTERN }) })

export const PutTemplateBodySchema = Type.Object({
  defaultLanguage: Type.String({ pattern: LANGUAGE_PATTERN, maxLength: 35 }),
  clientCallable: Type.Boolean({ default: false, description: 'Only such templates may be sent through the app API' }),
  variables: Type.Record(Type.String(), Type.Union([Type.String({ maxLength: MAX_VARIABLE_LENGTH }), Type.Null()]), {
    default: {},
    maxProperties: MAX_VARIABLES,
    description: 'Declared variables: { name: default value, or null for none }',
  }),
  translations: Type.Record(Type.String(), TranslationSchema, {
    minProperties: 1,
    maxProperties: 50,
    description: '{ language: { subject, html, text? } }; must include defaultLanguage',
  }),
})
export type PutTemplateBody = Static<typeof PutTemplateBodySchema>

export const EmailTemplateSchema = Type.Object({
  slug: Type.String(),
  defaultLanguage: Type.String(),
  clientCallable: Type.Boolean(),
  system: Type.Boolean({ description: 'Sent by e-mail accounts: cannot be deleted or made client-callable' }),
  variables: Type.Record(Type.String(), NullableString),
  translations: Type.Record(
    Type.String(),
    Type.Object({ subject: Type.String(), html: Type.String(), text: NullableString }),
  ),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
})
export type EmailTemplate = Static<typeof EmailTemplateSchema>

export const EmailTemplateListSchema = Type.Object({
  items: Type.Array(EmailTemplateSchema),
  nextCursor: NullableString,
})

export const PreviewBodySchema = Type.Object({
  language: OptionalString({ maxLength: 35 }),
  variables: Nullable(VariableValuesSchema),
})

export const PreviewResponseSchema = Type.Object({
  language: Type.String({ description: 'The translation used (after fallback)' }),
  subject: Type.String(),
  html: Type.String(),
  text: NullableString,
})
export type PreviewResponse = Static<typeof PreviewResponseSchema>

export const TemplateDeletedSchema = Type.Object({ slug: Type.String(), deleted: Type.Literal(true) })

// ---- admin: the queue ------------------------------------------------------------------------

export const AdminEmailQuerySchema = Type.Object({
  status: Type.Optional(EmailStatusSchema),
  userId: Type.Optional(UuidSchema),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
})

export const AdminEmailSchema = Type.Object({
  ...EmailStatusResponseSchema.properties,
  recipient: Type.String(),
  subject: Type.String(),
  account: Type.Boolean({ description: 'An account e-mail (verification, reset)' }),
  nextAttemptAt: TimestampSchema,
  updatedAt: TimestampSchema,
})
export type AdminEmail = Static<typeof AdminEmailSchema>

export const AdminEmailListSchema = Type.Object({
  items: Type.Array(AdminEmailSchema),
  nextCursor: NullableString,
})

// ---- what e-mail sending announces ---------------------------------------------------------------

/** `email.failed`: an e-mail failed for good (no attempt left, or refused for good). */
export const EmailFailedEventSchema = Type.Object({
  emailId: Type.String(),
  recipient: Type.String(),
  subject: Type.String(),
  reason: Type.String(),
  attempts: Type.Integer(),
})

// Loads the hub's module, which the maps below extend, in every program (the console's too).
import type {} from '../../platform/core/events.js'

declare module '../../platform/core/events.js' {
  interface RaisedEvents {
    'email.failed': Static<typeof EmailFailedEventSchema>
  }
}

// ---- its part of a player's data export (features/users/export.ts) -------------------------------

/** The e-mails sent to the player (their bodies left out). */
export const EmailExportSchema = {
  emails: Type.Array(
    Type.Object({
      id: Type.String(),
      template: Type.String(),
      language: Type.String(),
      recipient: Type.String(),
      subject: Type.String(),
      account: Type.Boolean({ description: 'A verification or password-reset e-mail' }),
      status: Type.String(),
      scheduledAt: TimestampSchema,
      processedAt: Type.Union([TimestampSchema, Type.Null()]),
      createdAt: TimestampSchema,
    }),
  ),
}
