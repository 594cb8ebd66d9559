import type { Db } from '../../db/types.js'
import type { Leaderboard } from './tables.js'
import { isForeignKeyViolation, isUniqueViolation, routineCall, supportsRoutines } from '../../db/dialect.js'
import { prepared } from '../../db/prepared.js'
import { retryOnConflict } from '../../db/transaction.js'
import { periodKey } from './ranking.js'
import type { SubmitView } from './submit-view.js'

/**
 * A score submit in one round trip, on the database servers: the stored routine
 * `leaderboard_submit` (migration 0131, where its steps are told) reads what `readSubmitView` reads
 * and, in the common case — a player's first entry or a change of a visible one, on an active board
 * the player may write to, that does not take first place while events are raised — writes the
 * entry and the count tree in one transaction on the server. In every other case it writes nothing
 * and answers the view, from which submit.ts goes on as after its own view read.
 */

/** The routine's answer: its outcome, the written answer, and the view (see the migration). */
interface RoutineRow {
  r_outcome: 'written' | 'unchanged' | 'view' | 'raced' | 'lead'
  r_position: number | string | null
  r_stored: number | string | null
  r_rank: number | string | null
  r_user: number | string | null
  r_user_banned_at: number | string | null
  r_id: string | null
  r_board_key: string
  r_name: string
  r_sort_order: Leaderboard['sort_order']
  r_update_strategy: Leaderboard['update_strategy']
  r_min_score: number | string
  r_max_score: number | string
  r_reset_schedule: Leaderboard['reset_schedule']
  r_validated_only: number | string
  r_is_active: number | string
  r_created_at: number | string
  r_updated_at: number | string
  r_banned: string | null
  r_e_score: number | string | null
  r_e_rank_score: number | string | null
  r_e_reached_at: number | string | null
  r_e_hidden: number | string | null
  r_e_position: number | string | null
}

interface RoutineValues {
  userId: string
  boardKey: string
  daily: string
  weekly: string
  monthly: string
  score: number
  metadata: string | null
  now: number
  validated: number
  checkUser: number
  raising: number
}

const ARGUMENTS: Array<keyof RoutineValues> = [
  'userId',
  'boardKey',
  'daily',
  'weekly',
  'monthly',
  'score',
  'metadata',
  'now',
  'validated',
  'checkUser',
  'raising',
]

const call = prepared<RoutineValues, RoutineRow>((db, p) => {
  const query = routineCall(
    db,
    'leaderboard_submit',
    ARGUMENTS.map((name) => p[name]),
  )
  return { compile: () => query.compile(db) as never }
})

/** The routine's parameters are as long as the columns: a longer key or id matches nothing anyway. */
const fits = (userId: string, boardKey: string) => userId.length <= 36 && boardKey.length <= 64

/** Whether the submit can go through the routine on this database. */
export const hasSubmitRoutine = (db: Db, userId: string, boardKey: string) =>
  !db.isTransaction && supportsRoutines(db) && fits(userId, boardKey)

/** What the routine did: the entry written or left as it was (with the answer), or the view to go on from. */
export type RoutineOutcome =
  | {
      answered: true
      improved: boolean
      boardId: string
      boardKey: string
      stored: number
      position: number
      movedUp: boolean
    }
  | { answered: false; view: SubmitView }

const num = (value: number | string) => Number(value)
const numOrNull = (value: number | string | null) => (value === null ? null : Number(value))

function viewOf(row: RoutineRow): SubmitView {
  if (Number(row.r_user ?? 0) !== 1) return { user: null, board: null, entry: null }
  const board: (Leaderboard & { banned: string | null }) | null =
    row.r_id === null
      ? null
      : {
          id: row.r_id,
          board_key: row.r_board_key,
          name: row.r_name,
          sort_order: row.r_sort_order,
          update_strategy: row.r_update_strategy,
          min_score: num(row.r_min_score),
          max_score: num(row.r_max_score),
          reset_schedule: row.r_reset_schedule,
          validated_only: num(row.r_validated_only) as 0 | 1,
          is_active: num(row.r_is_active) as 0 | 1,
          created_at: num(row.r_created_at),
          updated_at: num(row.r_updated_at),
          banned: row.r_banned,
        }
  return {
    user: { banned_at: numOrNull(row.r_user_banned_at) },
    board,
    entry:
      row.r_e_score === null
        ? null
        : {
            score: num(row.r_e_score),
            rank_score: num(row.r_e_rank_score!),
            reached_at: num(row.r_e_reached_at!),
            hidden: num(row.r_e_hidden!),
            // Read by the routine only when the submit changes nothing, the one case that answers it.
            position: num(row.r_e_position ?? 0),
          },
  }
}

/**
 * The submit through the routine, retried when the database broke a deadlock with it (it rolled
 * back what it began). A key that refused the routine's write (the player deleted meanwhile) answers
 * null: the caller then takes its own way, which says why.
 */
export async function submitByRoutine(
  db: Db,
  input: {
    userId: string
    boardKey: string
    score: number
    metadata: string | null
    now: number
    validated: boolean
    checkUser: boolean
    raising: boolean
  },
): Promise<RoutineOutcome | null> {
  const values: RoutineValues = {
    userId: input.userId,
    boardKey: input.boardKey,
    daily: periodKey('daily', input.now),
    weekly: periodKey('weekly', input.now),
    monthly: periodKey('monthly', input.now),
    score: input.score,
    metadata: input.metadata,
    now: input.now,
    validated: input.validated ? 1 : 0,
    checkUser: input.checkUser ? 1 : 0,
    raising: input.raising ? 1 : 0,
  }
  let row: RoutineRow | undefined
  try {
    row = await retryOnConflict(() => call.first(db, values))
  } catch (error) {
    if (isForeignKeyViolation(error) || isUniqueViolation(error)) return null
    throw error
  }
  if (!row) throw new Error('the leaderboard_submit routine answered no row')
  if (row.r_outcome === 'unchanged')
    return {
      answered: true,
      improved: false,
      boardId: row.r_id!,
      boardKey: row.r_board_key,
      stored: num(row.r_e_score!),
      position: num(row.r_e_position!),
      movedUp: false,
    }
  if (row.r_outcome === 'written')
    return {
      answered: true,
      improved: true,
      boardId: row.r_id!,
      boardKey: row.r_board_key,
      stored: num(row.r_stored!),
      position: num(row.r_position!),
      movedUp: row.r_e_rank_score !== null && num(row.r_rank!) < num(row.r_e_rank_score),
    }
  return { answered: false, view: viewOf(row) }
}
