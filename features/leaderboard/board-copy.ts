// Copying board definitions between games (features/games/copy.ts, through service.ts): the boards'
// settings, never their entries.
import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import type { Db } from '../../db/types.js'
import { flag } from '../../db/dialect.js'
import { withTransaction } from '../../db/transaction.js'
import { badRequest } from '../../platform/core/errors.js'
import type { EventSender } from '../../platform/core/events.js'
import type { ResetSchedule, SortOrder, UpdateStrategy } from './tables.js'
import { rebuildCounts } from './ranking.js'

/** A board's definition as copying compares it (its key is the key). */
export interface BoardCopy {
  name: string
  sortOrder: SortOrder
  updateStrategy: UpdateStrategy
  minScore: number
  maxScore: number
  resetSchedule: ResetSchedule
  validatedOnly: boolean
  isActive: boolean
}

/** Every board's definition by key: what copying the leaderboards to another game compares. */
export async function snapshotBoards(db: Db): Promise<Record<string, BoardCopy>> {
  const rows = await db.selectFrom('leaderboards').selectAll().execute()
  return Object.fromEntries(
    rows.map((r) => [
      r.board_key,
      {
        name: r.name,
        sortOrder: r.sort_order,
        updateStrategy: r.update_strategy,
        minScore: Number(r.min_score),
        maxScore: Number(r.max_score),
        resetSchedule: r.reset_schedule,
        validatedOnly: r.validated_only === 1,
        isActive: r.is_active === 1,
      },
    ]),
  )
}

/**
 * Creates the boards of `put` and sets the definitions of those that exist, their entries kept (a
 * flipped sort order turns their rank scores around and rebuilds the count tree, as the operator's
 * PUT does), in one transaction. Boards are never deleted here: a board's entries go with it.
 */
export async function replaceBoards(
  db: Db,
  events: EventSender,
  put: Record<string, BoardCopy>,
  now: number,
): Promise<void> {
  await withTransaction(db, async (trx) => {
    for (const [boardKey, board] of Object.entries(put)) {
      if (board.minScore > board.maxScore) {
        throw badRequest(`the board ${boardKey}'s minScore is above its maxScore`, '/parts')
      }
      const fields = {
        name: board.name,
        sort_order: board.sortOrder,
        update_strategy: board.updateStrategy,
        min_score: board.minScore,
        max_score: board.maxScore,
        reset_schedule: board.resetSchedule,
        validated_only: flag(board.validatedOnly),
        is_active: flag(board.isActive),
        updated_at: now,
      }
      const existing = await trx
        .selectFrom('leaderboards')
        .select(['id', 'sort_order'])
        .where('board_key', '=', boardKey)
        .executeTakeFirst()
      if (!existing) {
        await trx
          .insertInto('leaderboards')
          .values({ id: randomUUID(), board_key: boardKey, created_at: now, ...fields })
          .execute()
        continue
      }
      await trx.updateTable('leaderboards').set(fields).where('id', '=', existing.id).execute()
      events.notify(trx, 'boardChanged', existing.id, 1)
      if (board.sortOrder !== existing.sort_order) {
        await trx
          .updateTable('leaderboard_entries')
          .set({ rank_score: sql<number>`-rank_score` })
          .where('board_id', '=', existing.id)
          .execute()
        await rebuildCounts(trx, existing.id)
      }
    }
  })
}
