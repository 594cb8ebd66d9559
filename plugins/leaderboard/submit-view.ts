import { sql } from 'kysely'
import type { Db, Leaderboard } from '../../db/types.js'
import { prepared } from '../../db/prepared.js'
import { periodKey } from './ranking.js'

/** The player's entry in the board's current period, as the view read it (null: none yet). */
export interface ViewedEntry {
  score: number
  rank_score: number
  reached_at: number
  hidden: number
}

export interface SubmitView {
  /** The player's standing: null when no user has this id. */
  user: { banned_at: number | null } | null
  /** The board with this key, and whether the player is banned from it (null: no such board). */
  board: (Leaderboard & { banned: string | null }) | null
  entry: ViewedEntry | null
}

type ViewRow = Leaderboard & {
  user_banned_at: number | null
  banned: string | null
  e_score: number | null
  e_rank_score: number | null
  e_reached_at: number | null
  e_hidden: number | null
}

/**
 * What a submit needs to know before it writes, in one statement: the player (exists, banned), the
 * board and the player's ban from it, and the player's entry in the board's current period. The
 * period depends on the board's reset schedule, which is read in the same statement: the key of
 * each schedule's current period is passed in and the row's schedule picks one. No locks are taken.
 */
const view = prepared((db, p: { userId: string; boardKey: string; daily: string; weekly: string; monthly: string }) =>
  db
    .selectFrom('users as u')
    .leftJoin('leaderboards as b', (join) => join.on('b.board_key', '=', p.boardKey))
    .leftJoin('leaderboard_entries as e', (join) =>
      join
        .onRef('e.board_id', '=', 'b.id')
        .onRef('e.user_id', '=', 'u.id')
        .on((eb) =>
          eb(
            'e.period',
            '=',
            sql<string>`case ${sql.ref('b.reset_schedule')} when 'daily' then ${p.daily} when 'weekly' then ${p.weekly} when 'monthly' then ${p.monthly} else 'all' end`,
          ),
        ),
    )
    .selectAll('b')
    .select((eb) => [
      'u.banned_at as user_banned_at',
      eb
        .selectFrom('leaderboard_bans as ban')
        .select('ban.user_id')
        .whereRef('ban.board_id', '=', 'b.id')
        .where('ban.user_id', '=', p.userId)
        .as('banned'),
      'e.score as e_score',
      'e.rank_score as e_rank_score',
      'e.reached_at as e_reached_at',
      'e.hidden as e_hidden',
    ])
    .where('u.id', '=', p.userId),
)

export async function readSubmitView(db: Db, userId: string, boardKey: string, now: number): Promise<SubmitView> {
  const row = (await view.first(db, {
    userId,
    boardKey,
    daily: periodKey('daily', now),
    weekly: periodKey('weekly', now),
    monthly: periodKey('monthly', now),
  })) as ViewRow | undefined
  if (!row) return { user: null, board: null, entry: null }
  const { user_banned_at, e_score, e_rank_score, e_reached_at, e_hidden, ...board } = row
  return {
    user: { banned_at: user_banned_at },
    board: board.id === null ? null : board,
    entry:
      e_score === null
        ? null
        : { score: e_score, rank_score: e_rank_score!, reached_at: e_reached_at!, hidden: e_hidden! },
  }
}

type EntryKey = { boardId: string; period: string; userId: string }

/**
 * Writes the entry's new score when it is still exactly what the view read (compare-and-set): one
 * conditional UPDATE in place of a locking read and a write. No row matched: another write came
 * first, and the caller goes the locking way.
 */
export const casEntry = prepared(
  (
    db,
    p: EntryKey & {
      score: number
      rankScore: number
      metadata: string | null
      now: number
      oldScore: number
      oldRankScore: number
      oldReachedAt: number
    },
  ) =>
    db
      .updateTable('leaderboard_entries')
      .set({ score: p.score, rank_score: p.rankScore, reached_at: p.now, hidden: 0, metadata: p.metadata })
      .where('board_id', '=', p.boardId)
      .where('period', '=', p.period)
      .where('user_id', '=', p.userId)
      .where('score', '=', p.oldScore)
      .where('rank_score', '=', p.oldRankScore)
      .where('reached_at', '=', p.oldReachedAt)
      .where('hidden', '=', 0),
)
