import type { Insertable, Selectable } from 'kysely'
import type { Flag } from '../../db/types.js'

/** E-mail templates (email-sending feature); `variables` and `translations` are JSON text. */
export interface EmailTemplatesTable {
  slug: string
  default_language: string
  client_callable: Flag
  is_system: Flag
  /** `{ name: default | null }` */
  variables: string
  /** `{ language: { subject, html, text? } }` */
  translations: string
  created_at: number
  updated_at: number
}

/** Where an e-mail is in the queue: `processing` while a worker's claim holds it; the last three are final. */
export type EmailStatus = 'pending' | 'processing' | 'sent' | 'failed' | 'cancelled'

/** The e-mail queue (email-sending feature). */
export interface EmailsTable {
  id: string
  user_id: string
  template_slug: string
  language: string
  recipient: string
  subject: string
  /** Null once an account e-mail (it carries a token) is done with. */
  html: string | null
  text_body: string | null
  /** Account e-mails (verification, reset): not counted in the per-user quota. */
  is_account: Flag
  status: EmailStatus
  scheduled_at: number
  next_attempt_at: number
  attempts: number
  claim_token: string | null
  claimed_at: number | null
  processed_at: number | null
  error_reason: string | null
  created_at: number
  updated_at: number
}

// The tables join the one Database type (db/types.ts), so every query over them is typed.
declare module '../../db/types.js' {
  interface Database {
    email_templates: EmailTemplatesTable
    emails: EmailsTable
  }
}

/** A row of email_templates as read. */
export type EmailTemplateRow = Selectable<EmailTemplatesTable>

/** A row of emails as read. */
export type EmailRow = Selectable<EmailsTable>

/** A row of emails as inserted. */
export type NewEmail = Insertable<EmailsTable>
