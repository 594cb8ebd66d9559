import type { OperatorRole } from '../../db/types.js'

/** A console account: its name, password hash, role and optional TOTP second factor. */
export interface OperatorsTable {
  id: string
  /** Lower-cased: names are unique case-insensitively. */
  username: string
  /** `scrypt$N$r$p$salt$hash` (see platform/security/passwords.ts). */
  password_hash: string
  role: OperatorRole
  /** A non-owner's role per game, JSON `{ "<gameId>": "moderator" | "viewer" }`; null for an owner. */
  roles: string | null
  /** Base32 TOTP secret once confirmed; null = no second factor. */
  totp_secret: string | null
  /** A secret handed out by enrollment, active only once a code from it is confirmed. */
  totp_pending_secret: string | null
  /** The last accepted TOTP time step: a code of this step or earlier is a replay. */
  totp_last_step: number | null
  created_at: number
  updated_at: number
}

/** An operator's console session, by token hash: it ends when idle too long or 24 h after sign-in. */
export interface OperatorSessionsTable {
  id: string
  operator_id: string
  token_hash: string
  created_at: number
  last_seen_at: number
  /** The absolute end (24 h after sign-in); the idle limit counts from last_seen_at. */
  expires_at: number
}

// The tables join the one Database type (db/types.ts), so every query over them is typed.
declare module '../../db/types.js' {
  interface Database {
    operators: OperatorsTable
    operator_sessions: OperatorSessionsTable
  }
}
