export type Flag = 0 | 1

export interface UsersTable {
  id: string
  /** The user's one name: `username` and `displayName` in the API. */
  username: string
  email: string | null
  is_anonymous: Flag
  is_verified: Flag
  anonymous_token_hash: string | null
  banned_at: number | null
  ban_reason: string | null
  created_at: number
  updated_at: number
  /** E-mail accounts: `scrypt$N$r$p$salt$hash` (see platform/security/passwords.ts). */
  password_hash: string | null
  /** The e-mail trimmed and lower-cased, unique: e-mails are unique case-insensitively. */
  email_key: string | null
  /** No longer used: the lockout lives in login_locks, keyed by e-mail (migration 0046). */
}

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

export type CosmeticType = 'avatar' | 'frame' | 'badge'

export interface CosmeticsTable {
  id: string
  type: CosmeticType
  name: string
  locked: Flag
  created_at: number
  updated_at: number
}

export interface PlayerProfilesTable {
  user_id: string
  avatar_id: string | null
  frame_id: string | null
  /** JSON array of badge ids, in the player's order. */
  badges: string
  /** JSON object text, or null when never set. */
  custom_data: string | null
  /** Mirrors the player's rows in player_unlocks: the maxUnlocks limit is settled on it. */
  unlock_count: number
  created_at: number
  updated_at: number
}

export interface PlayerUnlocksTable {
  user_id: string
  cosmetic_id: string
  created_at: number
}

export type SortOrder = 'asc' | 'desc'
export type UpdateStrategy = 'best' | 'latest' | 'increment'
export type ResetSchedule = 'none' | 'daily' | 'weekly' | 'monthly'

export interface LeaderboardsTable {
  id: string
  board_key: string
  name: string
  sort_order: SortOrder
  update_strategy: UpdateStrategy
  min_score: number
  max_score: number
  reset_schedule: ResetSchedule
  validated_only: Flag
  is_active: Flag
  created_at: number
  updated_at: number
}

export interface LeaderboardEntriesTable {
  board_id: string
  /** 'all', or the period of a board with a reset schedule ('2026-11-22', '2026-W48', '2026-11'). */
  period: string
  user_id: string
  score: number
  /** The score turned so that smaller is better: −score on desc boards, score on asc boards. */
  rank_score: number
  /** When the stored score was reached: the tie-breaker after the score. */
  reached_at: number
  /** 1 while the player is banned from the board: left out of ranking and counts. */
  hidden: Flag
  /** JSON text of the submitted metadata (string or object), for the operator. */
  metadata: string | null
  created_at: number
}

export interface LeaderboardCountsTable {
  board_id: string
  period: string
  level: number
  prefix: number
  n: number
}

export interface LeaderboardBansTable {
  board_id: string
  user_id: string
  reason: string | null
  created_at: number
}

/** One cloud save per user: the bytes as sent, and whether they came as text or binary. */
export interface CloudSavesTable {
  user_id: string
  data: Buffer
  /** 1: saved as raw bytes (octet-stream), answered as base64 through a JSON load; 0: UTF-8 text. */
  is_binary: Flag
  size_bytes: number
  /** 1 with the first save, one more with each save after it. */
  version: number
  created_at: number
  updated_at: number
}
