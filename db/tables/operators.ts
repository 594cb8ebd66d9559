import type { Generated } from 'kysely'

export type OperatorRole = 'owner' | 'moderator' | 'viewer'

export interface OperatorsTable {
  id: string
  /** Lower-cased: names are unique case-insensitively. */
  username: string
  /** `scrypt$N$r$p$salt$hash` (see platform/security/passwords.ts). */
  password_hash: string
  role: OperatorRole
  /** Base32 TOTP secret once confirmed; null = no second factor. */
  totp_secret: string | null
  /** A secret handed out by enrollment, active only once a code from it is confirmed. */
  totp_pending_secret: string | null
  /** The last accepted TOTP time step: a code of this step or earlier is a replay. */
  totp_last_step: number | null
  created_at: number
  updated_at: number
}

export interface OperatorSessionsTable {
  id: string
  operator_id: string
  token_hash: string
  created_at: number
  last_seen_at: number
  /** The absolute end (24 h after sign-in); the idle limit counts from last_seen_at. */
  expires_at: number
}

/** A background job's run lease (platform/jobs/runner.ts): the instance that ran it last, and when. */
export interface JobRunsTable {
  name: string
  claimed_at: number
  /** The runner that holds the current period (a random id per app instance), null before the first. */
  claimed_by: string | null
}

export interface AuditLogTable {
  /** Auto-increment: the order entries were written in. */
  id: Generated<number>
  at: number
  /** The operator's name, `admin-key`, or for a failed sign-in the name that was tried. */
  actor: string
  role: string | null
  address: string
  request_id: string
  /** `METHOD /route/:pattern` below the admin prefix, or `sign-in` / `sign-in-failed`. */
  action: string
  status: number
  /** JSON of the path parameters, or null. */
  target: string | null
  /** JSON summary of the body, secrets removed and size capped, or null. */
  changes: string | null
}
