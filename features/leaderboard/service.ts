import type { Db } from '../../db/types.js'
import { toIso } from '../../platform/core/clock.js'

/**
 * The leaderboard feature's one entry for other code: the boards, the score write (also used by
 * validated runs) and the reads, each in a file of its own, and the player's data export.
 */
export * from './boards.js'
export * from './submit.js'
export * from './withdraw.js'
export * from './reads.js'
/** A board as read, for validated runs that write scores to it (the columns stay in ./tables.ts). */
export type { Leaderboard } from './tables.js'

/** The player's entries on every board and their board bans, for their data export. */
export async function exportForUser(db: Db, userId: string) {
  const [entries, bans] = await Promise.all([
    db
      .selectFrom('leaderboard_entries as e')
      .innerJoin('leaderboards as b', 'b.id', 'e.board_id')
      .select(['b.board_key', 'e.period', 'e.score', 'e.reached_at', 'e.hidden', 'e.metadata', 'e.created_at'])
      .where('e.user_id', '=', userId)
      .where('e.reached_at', '>=', 0)
      .orderBy('b.board_key')
      .orderBy('e.period')
      .execute(),
    db
      .selectFrom('leaderboard_bans as x')
      .innerJoin('leaderboards as b', 'b.id', 'x.board_id')
      .select(['b.board_key', 'x.reason', 'x.created_at'])
      .where('x.user_id', '=', userId)
      .orderBy('b.board_key')
      .execute(),
  ])
  return {
    entries: entries.map((e) => ({
      leaderboardKey: e.board_key,
      period: e.period,
      score: Number(e.score),
      reachedAt: toIso(Number(e.reached_at)),
      hidden: e.hidden === 1,
      metadata: e.metadata === null ? null : (JSON.parse(e.metadata) as unknown),
      createdAt: toIso(Number(e.created_at)),
    })),
    bans: bans.map((b) => ({ leaderboardKey: b.board_key, reason: b.reason, bannedAt: toIso(Number(b.created_at)) })),
  }
}
export * from './histogram.js'
export * from './board-copy.js'
