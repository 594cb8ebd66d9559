import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import type { Db } from '../../db/types.js'
import type { Leaderboard } from './tables.js'
import { affected, flag, forUpdate, insertOrIgnore } from '../../db/dialect.js'
import { inTransaction } from '../../db/transaction.js'
import { AppError, badRequest, notFound } from '../../platform/core/errors.js'
import { toIso } from '../../platform/core/clock.js'
import { keysetPage } from '../../platform/http/pagination.js'
import type { EventSender } from '../../platform/core/events.js'
import { findUser, userNames } from '../users/service.js'
import { MAX_SCORE, type AdminBoard, type AdminEntry, type BoardBan, type BoardPutBody } from './schemas.js'
import { applyCounts, countDeltas, periodKey, positionOf, rebuildCounts } from './ranking.js'
import { boardNotFound, findBoard, readPeriod, scoreCounts, toBoardSummary, type Period } from './service.js'
import { removeEntries } from './entries.js'

/** The operator's side of leaderboards: boards, entries, resets and board bans. */

export const DEFAULT_BOARD = 'default'

async function boardOrThrow(db: Db, boardKey: string): Promise<Leaderboard> {
  const board = await findBoard(db, boardKey)
  if (!board) throw boardNotFound(boardKey)
  return board
}

function toAdminBoard(board: Leaderboard, scoreCount: number): AdminBoard {
  return { ...toBoardSummary(board, scoreCount), minScore: board.min_score, maxScore: board.max_score }
}

/** One board for the console: its settings, score bounds and the number of entries in its current period. */
export async function adminBoard(db: Db, boardKey: string, now: number): Promise<AdminBoard> {
  const board = await boardOrThrow(db, boardKey)
  const counts = await scoreCounts(db, [board], now)
  return toAdminBoard(board, counts.get(board.id) ?? 0)
}

/** The boards, oldest first, a page at a time, each with its current period's entry count. */
export async function listBoards(db: Db, options: { limit: number; cursor?: string }, now: number) {
  const { items, nextCursor } = await keysetPage(db.selectFrom('leaderboards').selectAll(), {
    ...options,
    keys: ['created_at', 'id'],
    direction: 'asc',
  })
  const counts = await scoreCounts(db, items, now)
  return { items: items.map((b) => toAdminBoard(b, counts.get(b.id) ?? 0)), nextCursor }
}

/**
 * Creates a board, or updates the fields sent. Flipping the sort order of a board with entries turns
 * every rank score around and rebuilds its count tree, in the same transaction.
 */
export async function putBoard(
  db: Db,
  events: EventSender,
  boardKey: string,
  body: BoardPutBody,
  now: number,
): Promise<AdminBoard> {
  await inTransaction(db, async (trx) => {
    const existing = await forUpdate(
      trx,
      trx.selectFrom('leaderboards').selectAll().where('board_key', '=', boardKey),
    ).executeTakeFirst()
    const minScore = body.minScore ?? existing?.min_score ?? 0
    const maxScore = body.maxScore ?? existing?.max_score ?? MAX_SCORE
    if (minScore > maxScore)
      throw badRequest(`body/minScore (${minScore}) must not be above maxScore (${maxScore})`, '/minScore')
    const fields = {
      ...(body.name === undefined ? {} : { name: body.name }),
      ...(body.sortOrder === undefined ? {} : { sort_order: body.sortOrder }),
      ...(body.updateStrategy === undefined ? {} : { update_strategy: body.updateStrategy }),
      min_score: minScore,
      max_score: maxScore,
      ...(body.resetSchedule === undefined ? {} : { reset_schedule: body.resetSchedule }),
      ...(body.validatedOnly === undefined ? {} : { validated_only: flag(body.validatedOnly) }),
      ...(body.isActive === undefined ? {} : { is_active: flag(body.isActive) }),
      updated_at: now,
    }
    if (!existing) {
      await trx
        .insertInto('leaderboards')
        .values({
          id: randomUUID(),
          board_key: boardKey,
          name: boardKey,
          sort_order: 'desc',
          update_strategy: 'best',
          reset_schedule: 'none',
          validated_only: 0,
          is_active: 1,
          created_at: now,
          ...fields,
        })
        .execute()
      return
    }
    await trx.updateTable('leaderboards').set(fields).where('id', '=', existing.id).execute()
    events.notify(trx, 'boardChanged', existing.id, 1)
    if (body.sortOrder !== undefined && body.sortOrder !== existing.sort_order) {
      await trx
        .updateTable('leaderboard_entries')
        .set({ rank_score: sql<number>`-rank_score` })
        .where('board_id', '=', existing.id)
        .execute()
      await rebuildCounts(trx, existing.id)
    }
  })
  return adminBoard(db, boardKey, now)
}

/** Deletes a board with its entries, counts and bans; the `default` board cannot be deleted (409). */
export async function deleteBoard(db: Db, events: EventSender, boardKey: string) {
  if (boardKey === DEFAULT_BOARD) throw new AppError(409, 'CONFLICT', "The 'default' leaderboard cannot be deleted")
  const board = await boardOrThrow(db, boardKey)
  // Entries, counts and bans go with the board (ON DELETE CASCADE).
  await db.deleteFrom('leaderboards').where('id', '=', board.id).execute()
  events.notify(db, 'boardChanged', board.id, 1)
}

/** Empties the board's current period (finished periods stay readable). */
export async function resetBoard(db: Db, events: EventSender, boardKey: string, now: number): Promise<AdminBoard> {
  const board = await boardOrThrow(db, boardKey)
  const period = periodKey(board.reset_schedule, now)
  await inTransaction(db, async (trx) => {
    await trx.deleteFrom('leaderboard_entries').where('board_id', '=', board.id).where('period', '=', period).execute()
    await trx.deleteFrom('leaderboard_counts').where('board_id', '=', board.id).where('period', '=', period).execute()
    events.notify(trx, 'boardChanged', board.id, 1)
  })
  return adminBoard(db, boardKey, now)
}

/** Entries in ranking order (banned players' hidden entries last, without a position), with metadata. */
export async function listEntries(
  db: Db,
  boardKey: string,
  options: { limit: number; cursor?: string; period: Period },
  now: number,
) {
  const board = await boardOrThrow(db, boardKey)
  const period = readPeriod(board, options.period, now)
  if (period === null) return { items: [], nextCursor: null }
  const { items, nextCursor } = await keysetPage(
    db.selectFrom('leaderboard_entries').selectAll().where('board_id', '=', board.id).where('period', '=', period),
    { ...options, keys: ['hidden', 'rank_score', 'reached_at', 'user_id'], direction: 'asc' },
  )
  const firstVisible = items.find((r) => r.hidden === 0)
  let position = firstVisible ? await positionOf(db, board.id, period, firstVisible) : 0
  const names = await userNames(
    db,
    items.map((r) => r.user_id),
  )
  const entries: AdminEntry[] = items.map((r) => ({
    position: r.hidden === 0 ? position++ : null,
    userId: r.user_id,
    username: names.get(r.user_id) ?? '',
    score: r.score,
    metadata: r.metadata === null ? null : (JSON.parse(r.metadata) as AdminEntry['metadata']),
    hidden: r.hidden === 1,
    period: r.period,
    createdAt: toIso(r.created_at),
    updatedAt: toIso(r.reached_at),
  }))
  return { items: entries, nextCursor }
}

/** Removes a player's entry from the board's current period, counts included; 404 when there is none. */
export async function deleteEntry(db: Db, events: EventSender, boardKey: string, userId: string, now: number) {
  const board = await boardOrThrow(db, boardKey)
  const period = periodKey(board.reset_schedule, now)
  const removed = await inTransaction(db, (trx) => removeEntries(trx, events, { boardId: board.id, period, userId }))
  if (removed === 0) throw notFound('NOT_FOUND', 'The player has no entry in the current period of this leaderboard')
}

/** Hides (or shows again) the player's entries of every period, moving them out of (into) the counts. */
async function setHidden(trx: Db, events: EventSender, boardId: string, userId: string, hidden: 0 | 1) {
  events.notify(trx, 'boardChanged', boardId, 1)
  const rows = await forUpdate(
    trx,
    trx
      .selectFrom('leaderboard_entries')
      .select(['period', 'rank_score'])
      .where('board_id', '=', boardId)
      .where('user_id', '=', userId)
      .where('hidden', '=', hidden === 1 ? 0 : 1),
  ).execute()
  for (const row of rows) {
    await trx
      .updateTable('leaderboard_entries')
      .set({ hidden })
      .where('board_id', '=', boardId)
      .where('period', '=', row.period)
      .where('user_id', '=', userId)
      .execute()
    const deltas = hidden === 1 ? countDeltas(row.rank_score, null) : countDeltas(null, row.rank_score)
    await applyCounts(trx, boardId, row.period, deltas)
  }
}

/** Bans a player from one board (again: updates the reason): their entries are hidden and their submits refused. */
export async function banPlayer(
  db: Db,
  events: EventSender,
  boardKey: string,
  userId: string,
  reason: string | undefined,
  now: number,
): Promise<BoardBan> {
  const board = await boardOrThrow(db, boardKey)
  if (!(await findUser(db, userId))) throw notFound('USER_NOT_FOUND', 'User not found')
  await inTransaction(db, async (trx) => {
    const updated = await trx
      .updateTable('leaderboard_bans')
      .set({ reason: reason ?? null })
      .where('board_id', '=', board.id)
      .where('user_id', '=', userId)
      .executeTakeFirst()
    if (affected(updated) === 0) {
      await insertOrIgnore(
        trx,
        trx
          .insertInto('leaderboard_bans')
          .values({ board_id: board.id, user_id: userId, reason: reason ?? null, created_at: now }),
      ).execute()
    }
    await setHidden(trx, events, board.id, userId, 1)
  })
  const ban = await db
    .selectFrom('leaderboard_bans')
    .selectAll()
    .where('board_id', '=', board.id)
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow()
  return { leaderboardKey: board.board_key, userId, banned: true, reason: ban.reason, bannedAt: toIso(ban.created_at) }
}

/** Lifts a board ban: the player's entries rank again; 404 when the player is not banned. */
export async function unbanPlayer(db: Db, events: EventSender, boardKey: string, userId: string): Promise<BoardBan> {
  const board = await boardOrThrow(db, boardKey)
  await inTransaction(db, async (trx) => {
    const removed = await trx
      .deleteFrom('leaderboard_bans')
      .where('board_id', '=', board.id)
      .where('user_id', '=', userId)
      .executeTakeFirst()
    if (affected(removed) === 0) throw notFound('NOT_FOUND', 'The player is not banned from this leaderboard')
    await setHidden(trx, events, board.id, userId, 0)
  })
  return { leaderboardKey: board.board_key, userId, banned: false, reason: null, bannedAt: null }
}
