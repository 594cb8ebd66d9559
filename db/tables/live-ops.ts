import type { Flag } from './players.js'

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

/** One app run, registered by the crash-reporting SDKs (or by its first report): the base of the crash-free rate. */
export interface CrashSessionsTable {
  session_id: string
  app_version: string
  platform: string
  /** The userId as the client sent it (any string, "" when none). */
  user_id: string
  /** Set when user_id named an existing user: the row is erased with that user. */
  linked_user_id: string | null
  /** 1 once any report was filed under this session. */
  crashed: Flag
  created_at: number
  crashed_at: number | null
}

/** Reports with one fingerprint. Counters are kept by the database in the report's own upsert. */
export interface CrashGroupsTable {
  id: string
  fingerprint: string
  type: string
  /** The first report's message, shortened: the group's title. */
  message: string
  /** OPEN | RESOLVED | IGNORED | REGRESSED */
  status: string
  resolved_in_version: string | null
  /** `versionKey(resolved_in_version)`: compared with `<` in SQL to detect a regression. */
  resolved_version_key: string | null
  occurrences: number
  first_seen: number
  last_seen: number
  last_app_version: string
  updated_at: number
}

export interface CrashGroupVersionsTable {
  group_id: string
  app_version: string
  occurrences: number
  first_seen: number
  last_seen: number
}

/** The distinct users a group has hit: the key is the client's userId string. */
export interface CrashGroupUsersTable {
  group_id: string
  user_key: string
  linked_user_id: string | null
  first_seen: number
  last_seen: number
}

export interface CrashReportsTable {
  id: string
  group_id: string
  session_id: string
  type: string
  message: string
  stack_trace: string
  fingerprint: string
  app_version: string
  sdk_version: string
  platform: string
  os: string
  device_model: string
  device_memory_mb: number | null
  /** The userId as the client sent it ("anonymous", "", a UUID...). */
  user_id: string
  /** Set when user_id named an existing user: the report is erased with that user. */
  linked_user_id: string | null
  /** JSON text: [{ timestamp, type, message }], timestamps as sent. */
  breadcrumbs: string
  /** JSON text: { key: string }. */
  custom_keys: string
  truncated: Flag
  created_at: number
}

export interface UserFeedbackTable {
  id: string
  /** null: anonymous feedback. */
  user_id: string | null
  title: string
  message: string
  category: string
  email: string | null
  device_info: string | null
  created_at: number
}

export interface UserLogsTable {
  id: string
  user_id: string
  message: string
  /** INFO | WARN | ERROR */
  type: string
  error_code: string | null
  created_at: number
}

export interface GiftCodesTable {
  id: string
  /** Upper-case, [A-Z0-9-]{4,32}: players' input is trimmed and upper-cased before any lookup. */
  code: string
  gift_data: string
  /** JSON array of cosmetic ids unlocked on redemption. */
  grants: string
  max_redemptions: number
  /** Successful redemptions ever made; never lowered (not even when a redeeming user is deleted). */
  redemption_count: number
  starts_at: number | null
  expires_at: number | null
  revoked: Flag
  revoked_at: number | null
  created_at: number
  updated_at: number
}

export interface GiftCodeRedemptionsTable {
  gift_code_id: string
  user_id: string
  /** JSON array of the cosmetic ids this redemption newly unlocked. */
  granted_unlocks: string
  redeemed_at: number
}
