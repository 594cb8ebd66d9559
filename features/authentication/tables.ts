/** What an account token is for: confirming the account's e-mail address (`verify`) or a new password (`reset`). */
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

/** What a kept Google code holds: the checked identity, or the id_token not checked yet (Google was unreachable). */
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

// The tables join the one Database type (db/types.ts), so every query over them is typed.
declare module '../../db/types.js' {
  interface Database {
    account_tokens: AccountTokensTable
    google_codes: GoogleCodesTable
  }
}
