import type { Db } from '../../db/types.js'
import type { Leaderboard } from './tables.js'
import { prepared } from '../../db/prepared.js'
import { notFound } from '../../platform/core/errors.js'
import { toIso } from '../../platform/core/clock.js'
import { type BoardSummary } from './schemas.js'
import { periodKey, previousPeriodKey } from './ranking.js'

/** Boards: finding one, its periods, bans, and the board list with each board's count. */
export type Period = 'current' | 'previous'

/** A score's metadata is shown with every page of the board: a cap keeps pages small. */
export const METADATA_MAX_BYTES = 2048

const boardByKey = prepared((db, p: { boardKey: string }) =>
  db.selectFrom('leaderboards').selectAll().where('board_key', '=', p.boardKey),
)

/** Prepared: every score submit and read looks its board up. */
export async function findBoard(db: Db, boardKey: string): Promise<Leaderboard | undefined> {
  return boardByKey.first(db, { boardKey })
}

/** The one answer for a board that does not exist (or, on the app routes, is inactive). */
export const boardNotFound = (boardKey: string) =>
  notFound('LEADERBOARD_NOT_FOUND', `Leaderboard '${boardKey}' not found`)

/** A board the app routes may use: unknown and inactive boards are both 404 LEADERBOARD_NOT_FOUND. */
export async function activeBoard(db: Db, boardKey: string): Promise<Leaderboard> {
  const board = await findBoard(db, boardKey)
  if (!board || board.is_active !== 1) throw boardNotFound(boardKey)
  return board
}

/** The period key to read, or null when asked for the previous period of a board that never resets. */
export function readPeriod(board: Pick<Leaderboard, 'reset_schedule'>, period: Period, now: number): string | null {
  return period === 'previous' ? previousPeriodKey(board.reset_schedule, now) : periodKey(board.reset_schedule, now)
}

const banOf = prepared((db, p: { boardId: string; userId: string }) =>
  db.selectFrom('leaderboard_bans').select('user_id').where('board_id', '=', p.boardId).where('user_id', '=', p.userId),
)

/** The board and whether the player is banned from it, in one read (the submit path). */
export const boardForSubmit = prepared((db, p: { boardKey: string; userId: string }) =>
  db
    .selectFrom('leaderboards as b')
    .selectAll('b')
    .select((eb) =>
      eb
        .selectFrom('leaderboard_bans as ban')
        .select('ban.user_id')
        .whereRef('ban.board_id', '=', 'b.id')
        .where('ban.user_id', '=', p.userId)
        .as('banned'),
    )
    .where('b.board_key', '=', p.boardKey),
)

/**
 * An active board and whether the player is banned from it, in one read (validated runs check both
 * before a ticket is issued or used); an unknown or inactive board is 404 LEADERBOARD_NOT_FOUND.
 */
export async function activeBoardFor(
  db: Db,
  boardKey: string,
  userId: string,
): Promise<{ board: Leaderboard; banned: boolean }> {
  const row = await boardForSubmit.first(db, { boardKey, userId })
  if (!row || row.is_active !== 1) throw boardNotFound(boardKey)
  const { banned, ...board } = row
  return { board, banned: banned !== null && banned !== undefined }
}

/** The player is banned from the board: validated runs check it before a ticket is used. */
export async function isBannedFromBoard(db: Db, boardId: string, userId: string): Promise<boolean> {
  return (await banOf.first(db, { boardId, userId })) !== undefined
}

// ---- the score write --------------------------------------------------------------------------

/** The API shape of a board, with its score count. */
export function toBoardSummary(board: Leaderboard, scoreCount: number): BoardSummary {
  return {
    id: board.id,
    key: board.board_key,
    boardKey: board.board_key,
    name: board.name,
    sortOrder: board.sort_order,
    updateStrategy: board.update_strategy,
    resetSchedule: board.reset_schedule,
    validatedOnly: board.validated_only === 1,
    isActive: board.is_active === 1,
    scoreCount,
    createdAt: toIso(board.created_at),
    updatedAt: toIso(board.updated_at),
  }
}

/** Entries in each board's current period, read from the level-0 rows of the count tree (one query). */
export async function scoreCounts(db: Db, boards: Leaderboard[], now: number): Promise<Map<string, number>> {
  if (boards.length === 0) return new Map()
  const periods = new Map(boards.map((b) => [b.id, periodKey(b.reset_schedule, now)]))
  const rows = await db
    .selectFrom('leaderboard_counts')
    .select((eb) => ['board_id', 'period', eb.fn.sum<number | string>('n').as('n')])
    .where('board_id', 'in', [...periods.keys()])
    .where('period', 'in', [...new Set(periods.values())])
    .where('level', '=', 0)
    .where('prefix', '=', 0)
    // One row per slot (ranking.ts): a count is their sum.
    .groupBy(['board_id', 'period'])
    .execute()
  return new Map(rows.filter((r) => periods.get(r.board_id) === r.period).map((r) => [r.board_id, Number(r.n)]))
}

/** The boards a client may list, for the SDKs' board list. */
export async function listActiveBoards(db: Db, now: number) {
  const boards = await db
    .selectFrom('leaderboards')
    .selectAll()
    .where('is_active', '=', 1)
    .orderBy('created_at')
    .orderBy('board_key')
    .execute()
  const counts = await scoreCounts(db, boards, now)
  return { boards: boards.map((b) => toBoardSummary(b, counts.get(b.id) ?? 0)), totalElements: boards.length }
}

// ---- entries leaving the count tree -------------------------------------------------------------
