import type { Generated, Selectable } from 'kysely'
import type { Flag } from '../../db/types.js'

/** Whether a higher (`desc`) or a lower (`asc`) score ranks first: points against times. */
export type SortOrder = 'asc' | 'desc'

/** What a submit does to the player's stored score: keeps the better one, replaces it, or adds to it. */
export type UpdateStrategy = 'best' | 'latest' | 'increment'

/** How often a board starts a new period (at 00:00 UTC, weeks on Monday); finished periods stay readable. */
export type ResetSchedule = 'none' | 'daily' | 'weekly' | 'monthly'

/** A board's settings: its key, sort order, score bounds, update strategy and reset schedule. */
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

/** A player's stored score on a board for one period, with what ranks it (rank score, then time reached). */
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

/**
 * A board period's count tree (ranking.ts): `n` visible entries have a key whose first `level` digits
 * are `prefix`, summed over the slots (one per node of a Galera cluster, 0 on any other server).
 */
export interface LeaderboardCountsTable {
  board_id: string
  period: string
  level: number
  prefix: number
  /** The writer's slot (`countSlot`, db/dialect.ts): a count is the sum of its slots' rows. */
  slot: Generated<number>
  n: number
}

/** A player banned from one board: their entries stay hidden and their submits are refused there. */
export interface LeaderboardBansTable {
  board_id: string
  user_id: string
  reason: string | null
  created_at: number
}

// The tables join the one Database type (db/types.ts), so every query over them is typed.
declare module '../../db/types.js' {
  interface Database {
    leaderboards: LeaderboardsTable
    leaderboard_entries: LeaderboardEntriesTable
    leaderboard_counts: LeaderboardCountsTable
    leaderboard_bans: LeaderboardBansTable
  }
}

/** A row of leaderboards as read. */
export type Leaderboard = Selectable<LeaderboardsTable>

/** A row of leaderboard_entries as read. */
export type LeaderboardEntry = Selectable<LeaderboardEntriesTable>
