import type { Selectable } from 'kysely'
import type { Flag } from '../../db/types.js'

/** The profile slot a cosmetic fills: the avatar, the frame, or one of the badges. */
export type CosmeticType = 'avatar' | 'frame' | 'badge'

/** The catalog of cosmetics; a `locked` one is available to a player only once unlocked for them. */
export interface CosmeticsTable {
  id: string
  type: CosmeticType
  name: string
  locked: Flag
  created_at: number
  updated_at: number
}

/** A player's profile: what they wear (avatar, frame, badges) and their custom data. */
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

/** A cosmetic unlocked for a player, one row each. */
export interface PlayerUnlocksTable {
  user_id: string
  cosmetic_id: string
  created_at: number
}

// The tables join the one Database type (db/types.ts), so every query over them is typed.
declare module '../../db/types.js' {
  interface Database {
    cosmetics: CosmeticsTable
    player_profiles: PlayerProfilesTable
    player_unlocks: PlayerUnlocksTable
  }
}

/** A row of cosmetics as read. */
export type Cosmetic = Selectable<CosmeticsTable>

/** A row of player_profiles as read. */
export type PlayerProfile = Selectable<PlayerProfilesTable>
