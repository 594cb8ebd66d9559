import type { Transaction } from 'kysely'
import type { Database } from '../../db/types.js'
import type { Leaderboard } from './tables.js'
import { forUpdate } from '../../db/dialect.js'
import type { EventSender } from '../../platform/core/events.js'
import { applyCounts, countDeltas } from './ranking.js'

/**
 * Entry writes shared by the player side (service.ts) and the operator side (operator.ts) of this
 * feature. Internal to it: other features go through service.ts (submit, withdraw, find a board).
 */

/** Entries are ranked ascending by rank score: a board sorted descending stores the score negated. */
export const rankScoreOf = (board: Pick<Leaderboard, 'sort_order'>, score: number) =>
  board.sort_order === 'desc' ? -score : score

/**
 * Removes entries (admin removal, a withdrawn score, a deleted user) and their counts, in the
 * caller's transaction. The rows are locked first so a concurrent submit cannot slip a score change
 * in between.
 */
export async function removeEntries(
  trx: Transaction<Database>,
  events: EventSender,
  filter: { boardId?: string; period?: string; userId: string },
): Promise<number> {
  let select = trx
    .selectFrom('leaderboard_entries')
    .select(['board_id', 'period', 'rank_score', 'hidden'])
    .where('user_id', '=', filter.userId)
  if (filter.boardId) select = select.where('board_id', '=', filter.boardId)
  if (filter.period) select = select.where('period', '=', filter.period)
  const rows = await forUpdate(trx, select).execute()
  for (const row of rows) {
    if (row.hidden === 0) await applyCounts(trx, row.board_id, row.period, countDeltas(row.rank_score, null))
    events.notify(trx, 'boardChanged', row.board_id, 1)
  }
  let remove = trx.deleteFrom('leaderboard_entries').where('user_id', '=', filter.userId)
  if (filter.boardId) remove = remove.where('board_id', '=', filter.boardId)
  if (filter.period) remove = remove.where('period', '=', filter.period)
  await remove.execute()
  return rows.length
}
