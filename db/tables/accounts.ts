import type { Flag } from './players.js'

export type AccountTokenPurpose = 'verify' | 'reset'

/** Single-use tokens of e-mail accounts (authentication feature). */
export interface AccountTokensTable {
  id: string
  user_id: string
  purpose: AccountTokenPurpose
  token_hash: string
  expires_at: number
  used_at: number | null
  created_at: number
}

/**
 * One row per failed sign-in, or per attempt whose password check is still running (`in_flight`),
 * keyed by the SHA-256 of the normalized e-mail (or a scoped key, security/login-lockout.ts):
 * counted whether or not an account has that address.
 */
export interface LoginFailuresTable {
  id: string
  key_hash: string
  failed_at: number
  in_flight: Flag
}

export type SocialProvider = 'apple' | 'google'

/** A sign-in provider's subject bound to a user (users feature): one user per subject. */
export interface UserIdentitiesTable {
  provider: SocialProvider
  subject: string
  user_id: string
  /** The address the provider gave when the identity was bound (null when it gave none). */
  email: string | null
  /** Apple's private relay address (`is_private_email`). */
  is_private_email: Flag
  created_at: number
}

export type GoogleCodeKind = 'identity' | 'token'

/**
 * A Google authorization code already exchanged (authentication feature), by SHA-256 of the code:
 * `identity` holds the checked identity (JSON), `token` the id_token not checked yet.
 */
export interface GoogleCodesTable {
  code_hash: string
  kind: GoogleCodeKind
  payload: string
  expires_at: number
}

/** E-mail sign-in refused (429) for this key until `locked_until`, after too many failures. */
export interface LoginLocksTable {
  key_hash: string
  locked_until: number
}
