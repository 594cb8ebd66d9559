import type { Generated } from 'kysely'

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

/** E-mail sign-in refused (429) for this key until `locked_until`, after too many failures. */
export interface LoginLocksTable {
  key_hash: string
  locked_until: number
  /** Moved on by every attempt that takes the row, so that the take is a write (migration 0150). */
  lock_version: Generated<number>
}

/** A change counter per cached content feature (platform/content/content-cache.ts). */
export interface ContentVersionsTable {
  feature: string
  version: number
}

/** An operator's role, stored on the operator: owners do everything, moderators change the game, viewers read. */
export type OperatorRole = 'owner' | 'moderator' | 'viewer'

/** A background job's run lease (platform/jobs/runner.ts): the instance that ran it last, and when. */
export interface JobRunsTable {
  name: string
  claimed_at: number
  /** The runner that holds the current period (a random id per app instance), null before the first. */
  claimed_by: string | null
}

/** One row per admin write and per sign-in or failed one (platform/security/audit.ts): who did what, from where. */
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
  /** The game the write was for (platform/games/); null in entries written before games existed: the default's. */
  game_id: string | null
}

/** A game the server holds (platform/games/): its data lives in a database of its own (db/games.ts). */
export interface GamesTable {
  id: string
  name: string
  /** JSON of the game's own settings (platform/games/settings.ts); what it leaves out takes the environment's. */
  settings: string
  created_at: number
  updated_at: number
  /** Set when its erasure began: the game is gone for every request, and its database is being dropped. */
  deleted_at: number | null
}

/** An app key of a game: the SHA-256 of its secret, and the secret's first 8 characters to tell it by. */
export interface GameKeysTable {
  id: string
  game_id: string
  label: string
  prefix: string
  hash: string
  created_at: number
  last_used_at: number | null
  revoked_at: number | null
}

/** A boolean column: 0 or 1, stored alike on every engine (SQLite has no boolean type). */
export type Flag = 0 | 1

/** A player's session: the hashes of its access and refresh tokens, when each expires, and whether it was revoked. */
export interface SessionsTable {
  id: string
  user_id: string
  /** Sessions renewed from one sign-in share a family: reusing a spent refresh token revokes it. */
  family_id: string
  access_hash: string
  expires_at: number
  refresh_hash: string | null
  refresh_expires_at: number | null
  refresh_used_at: number | null
  revoked_at: number | null
  created_at: number
}
