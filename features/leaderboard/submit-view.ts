import { sql } from 'kysely'
import type { Db } from '../../db/types.js'
import type { Leaderboard } from './tables.js'
import { prepared } from '../../db/prepared.js'
import { entryPositionSql, periodKey } from './ranking.js'
import { table } from '../../db/games.js'

/** A score submit as the route and validated-actions hand it over. */
export interface SubmitInput {
  boardKey: string
  userId: string
  score: number
  /** A string or an object, kept with the entry when the stored score changes (operator only). */
  metadata?: string | Record<string, unknown> | null
  /** A server-checked run: may write to validatedOnly boards. */
  validated: boolean
  now: number
  /** Write only when the player has no entry for the period yet (an import): an existing one is left as it is. */
  onlyNew?: boolean
  /** The player's existence and ban are not checked yet (USER_NOT_FOUND, USER_BANNED come first). */
  checkUser?: boolean
}

/** What a submit answers: the score kept (the best, by the board's strategy) beside the one sent. */
export interface SubmitResult {
  leaderboardKey: string
  score: number
  submittedScore: number
  improved: boolean
  position: number
}

/** The player's entry in the board's current period, as the view read it (null: none yet). */
export interface ViewedEntry {
  score: number
  rank_score: number
  reached_at: number
  hidden: number
  /** Its position as the view read it (the count tree and ties, before this submit writes anything). */
  position: number
}

/** All a score submit needs to decide, read in one prepared statement. */
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
  e_position: number | string | null
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
      // A submit that changes nothing answers with this position: its only statement is this one.
      sql<number | null>`case when ${sql.ref('e.score')} is null then null else ${entryPositionSql(db, 'e')} end`.as(
        'e_position',
      ),
    ])
    .where('u.id', '=', p.userId),
)

/** One round trip for the submit's checks: the user, the board, a board ban and the current entry. */
export async function readSubmitView(db: Db, userId: string, boardKey: string, now: number): Promise<SubmitView> {
  const row = (await view.first(db, {
    userId,
    boardKey,
    daily: periodKey('daily', now),
    weekly: periodKey('weekly', now),
    monthly: periodKey('monthly', now),
  })) as ViewRow | undefined
  if (!row) return { user: null, board: null, entry: null }
  const { user_banned_at, e_score, e_rank_score, e_reached_at, e_hidden, e_position, ...board } = row
  return {
    user: { banned_at: user_banned_at },
    board: board.id === null ? null : board,
    entry:
      e_score === null
        ? null
        : {
            score: e_score,
            rank_score: e_rank_score!,
            reached_at: e_reached_at!,
            hidden: e_hidden!,
            position: Number(e_position),
          },
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

/**
 * A player's first entry in a board period, written as it will be seen, when the view found none:
 * one INSERT … SELECT in place of the placeholder, the locking read and the write. It writes nothing
 * when the board is gone or inactive or the player was banned from it since the view (the locking way
 * then says which); a concurrent first entry fails on the primary key, and the caller goes that way too.
 */
export const insertFirstEntry = prepared(
  (db, p: EntryKey & { score: number; rankScore: number; metadata: string | null; now: number }) => {
    const query = sql`insert into ${table(db, 'leaderboard_entries')} (board_id, period, user_id, score, rank_score, reached_at, hidden, metadata, created_at) select b.id, ${p.period}, ${p.userId}, ${p.score}, ${p.rankScore}, ${p.now}, 0, ${p.metadata}, ${p.now} from ${table(db, 'leaderboards')} b where b.id = ${p.boardId} and b.is_active = 1 and not exists (select 1 from ${table(db, 'leaderboard_bans')} ban where ban.board_id = b.id and ban.user_id = ${p.userId})`
    return { compile: () => query.compile(db) }
  },
)
