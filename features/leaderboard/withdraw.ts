import { type Transaction } from 'kysely'
import type { Database, Db } from '../../db/types.js'
import { forUpdate } from '../../db/dialect.js'
import { withTransaction } from '../../db/transaction.js'
import type { EventSender } from '../../platform/core/events.js'
import { removeEntries } from './entries.js'
import { periodKey } from './ranking.js'
import { findBoard } from './boards.js'
import { submitScore } from './submit.js'

/** Scores taken back (a deleted player, a rejected run) and brought in from another server. */

/** A user is being deleted: the cascade removes their entries but cannot update the count tree. */
export async function removeDeletedUserEntries(
  trx: Transaction<Database>,
  events: EventSender,
  userId: string,
): Promise<void> {
  await removeEntries(trx, events, { userId })
}

/**
 * Takes back a score written by `submitScore` at `at` (a validated run the operator rejected): the
 * player's entry of that period is removed when its stored score is still the one written then
 * (same score, reached at that time). An entry a later submit has changed is left alone. Returns
 * whether an entry was removed. Runs in the caller's transaction when given one.
 */
export async function withdrawScore(
  db: Db,
  events: EventSender,
  input: { boardKey: string; userId: string; score: number; at: number },
): Promise<boolean> {
  return withTransaction(db, async (trx) => {
    const board = await findBoard(trx, input.boardKey)
    if (!board) return false
    const period = periodKey(board.reset_schedule, input.at)
    const entry = await forUpdate(
      trx,
      trx
        .selectFrom('leaderboard_entries')
        .select(['score', 'reached_at'])
        .where('board_id', '=', board.id)
        .where('period', '=', period)
        .where('user_id', '=', input.userId),
    ).executeTakeFirst()
    if (!entry || entry.reached_at !== input.at || entry.score !== input.score) return false
    return (await removeEntries(trx, events, { boardId: board.id, period, userId: input.userId })) > 0
  })
}

// ---- data in and out --------------------------------------------------------------------------

/**
 * A score brought over from another server: written through `submitScore` (bounds, bans, the count
 * tree) as reached at `reachedAt`, but only when the player has no entry on the board yet, so a
 * second import changes nothing. False when an entry was already there.
 */
export async function importScore(
  db: Db,
  events: EventSender,
  input: { boardKey: string; userId: string; score: number; reachedAt: number },
): Promise<boolean> {
  const result = await submitScore(db, events, {
    boardKey: input.boardKey,
    userId: input.userId,
    score: input.score,
    validated: false,
    now: input.reachedAt,
    onlyNew: true,
  })
  return result.improved
}
