import { sql } from 'kysely'
import type { Db } from '../../db/types.js'
import type { Leaderboard } from './tables.js'
import { prepared } from '../../db/prepared.js'
import { entryPositionSql, periodKey, previousPeriodKey } from './ranking.js'
import { boardNotFound, readPeriod, type Period } from './boards.js'
import { table } from '../../db/games.js'

/** A player's visible entry in the period read, with its position (null: not ranked in it). */
export interface PlayerStanding {
  board: Leaderboard
  /** The period read: null for the previous period of a board that never resets. */
  period: string | null
  entry: { user_id: string; score: number; rank_score: number; reached_at: number; position: number } | null
  /** Visible entries in the period. */
  total: number
}

type PeriodKeys = { daily: string | null; weekly: string | null; monthly: string | null; none: string | null }

type Row = Leaderboard & {
  e_user_id: string | null
  e_score: number | null
  e_rank_score: number | null
  e_reached_at: number | null
  e_position: number | string | null
  total: number | string | null
}

/** The period key of the board row `b`: its schedule picks one of the keys passed in (null matches nothing). */
const periodOfRow = (p: PeriodKeys) =>
  sql<
    string | null
  >`case ${sql.ref('b.reset_schedule')} when 'daily' then ${p.daily} when 'weekly' then ${p.weekly} when 'monthly' then ${p.monthly} else ${p.none} end`

/** The visible entries of the board row `b` in `period`, from the count tree's root (its slots summed). */
const totalOfRow = (db: Db, period: ReturnType<typeof periodOfRow>) =>
  sql<
    number | null
  >`(select sum(n) from ${table(db, 'leaderboard_counts')} where board_id = ${sql.ref('b.id')} and period = ${period} and level = 0 and prefix = 0)`

/** Every schedule's key for the period asked for, for `periodOfRow`. */
function periodKeys(which: Period, now: number): PeriodKeys {
  const key = which === 'previous' ? previousPeriodKey : periodKey
  return { daily: key('daily', now), weekly: key('weekly', now), monthly: key('monthly', now), none: key('none', now) }
}

/**
 * The board, the player's visible entry in the period asked for, its position and the period's total,
 * in one statement read by the board's key. The period depends on the board's schedule, read in the
 * same statement: each schedule's key is passed in and the row's schedule picks one (a null key
 * matches nothing). The board row and the entry are read by unique keys, so both databases treat their
 * columns as constants in the position's count-tree ranges.
 */
const playerView = prepared((db, p: PeriodKeys & { boardKey: string; userId: string }) => {
  const period = periodOfRow(p)
  return db
    .selectFrom('leaderboards as b')
    .leftJoin('leaderboard_entries as e', (join) =>
      join
        .onRef('e.board_id', '=', 'b.id')
        .on('e.user_id', '=', p.userId)
        .on('e.hidden', '=', 0)
        .on((eb) => eb('e.period', '=', period)),
    )
    .selectAll('b')
    .select([
      'e.user_id as e_user_id',
      'e.score as e_score',
      'e.rank_score as e_rank_score',
      'e.reached_at as e_reached_at',
      sql<number | null>`case when ${sql.ref('e.user_id')} is null then null else ${entryPositionSql(db, 'e')} end`.as(
        'e_position',
      ),
      totalOfRow(db, period).as('total'),
    ])
    .where('b.board_key', '=', p.boardKey)
})

/** What rank and around start from; an unknown or inactive board is 404 LEADERBOARD_NOT_FOUND. */
export async function playerStanding(
  db: Db,
  boardKey: string,
  userId: string,
  which: Period,
  now: number,
): Promise<PlayerStanding> {
  const key = which === 'previous' ? previousPeriodKey : periodKey
  const row = (await playerView.first(db, { boardKey, userId, ...periodKeys(which, now) })) as Row | undefined
  if (!row || row.is_active !== 1) throw boardNotFound(boardKey)
  const { e_user_id, e_score, e_rank_score, e_reached_at, e_position, total, ...board } = row
  return {
    board,
    period: key(board.reset_schedule, now),
    entry:
      e_user_id === null
        ? null
        : {
            user_id: e_user_id,
            score: e_score!,
            rank_score: e_rank_score!,
            reached_at: e_reached_at!,
            position: Number(e_position),
          },
    total: Number(total ?? 0),
  }
}

/** The board and the period's visible entries, in one statement read by the board's key. */
const boardView = prepared((db, p: PeriodKeys & { boardKey: string }) =>
  db
    .selectFrom('leaderboards as b')
    .selectAll('b')
    .select(totalOfRow(db, periodOfRow(p)).as('total'))
    .where('b.board_key', '=', p.boardKey),
)

/**
 * What a top page starts from: the board, the period read and its total, the total riding along in the
 * board's read; an unknown or inactive board is 404 LEADERBOARD_NOT_FOUND.
 */
export async function boardStanding(
  db: Db,
  boardKey: string,
  which: Period,
  now: number,
): Promise<Omit<PlayerStanding, 'entry'>> {
  const row = (await boardView.first(db, { boardKey, ...periodKeys(which, now) })) as
    (Leaderboard & { total: number | string | null }) | undefined
  if (!row || row.is_active !== 1) throw boardNotFound(boardKey)
  const { total, ...board } = row
  return { board, period: readPeriod(board, which, now), total: Number(total ?? 0) }
}
