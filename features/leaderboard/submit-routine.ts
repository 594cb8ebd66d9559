import type { Db } from '../../db/types.js'
import type { Leaderboard } from './tables.js'
import {
  isForeignKeyViolation,
  isMissingRoutine,
  isUniqueViolation,
  routineCall,
  supportsRoutines,
} from '../../db/dialect.js'
import { createRoutine } from './migrations/0131_leaderboard_submit_routine.js'
import { prepared } from '../../db/prepared.js'
import { retryOnConflict } from '../../db/transaction.js'
import { markRoutineBack, markRoutineMissing, routineAvailable } from '../../db/routines.js'
import { periodKey } from './ranking.js'
import type { SubmitResult, SubmitView } from './submit-view.js'
import type { EventSender } from '../../platform/core/events.js'

/**
 * A score submit in one round trip, on the database servers: the stored routine
 * `leaderboard_submit` (migration 0131, where its steps are told; made again by 0161, which writes
 * count slots) reads what `readSubmitView` reads
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

/** The routine's name on the database (migration 0131). */
const ROUTINE = 'leaderboard_submit'

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
    ROUTINE,
    ARGUMENTS.map((name) => p[name]),
  )
  return { compile: () => query.compile(db) as never }
})

/** The routine's parameters are as long as the columns: a longer key or id matches nothing anyway. */
const fits = (userId: string, boardKey: string) => userId.length <= 36 && boardKey.length <= 64

/** Whether the submit can go through the routine on this database. */
export const hasSubmitRoutine = (db: Db, userId: string, boardKey: string) =>
  !db.isTransaction && supportsRoutines(db) && routineAvailable(db, ROUTINE) && fits(userId, boardKey)

/** How long submits go without the routine after putting it back failed, before they try it again. */
const RETRY_MS = 60_000

/**
 * Puts a missing routine back (its migration's DDL) and tells the operator's log (the
 * `submitRoutineMissing` notice). Until it is back, submits go without it; when creating it fails (no
 * right to create routines, or another instance created it first), they try the routine again after
 * RETRY_MS.
 */
function restoreRoutine(db: Db, events: EventSender): void {
  if (!routineAvailable(db, ROUTINE)) return
  markRoutineMissing(db, ROUTINE, Number.POSITIVE_INFINITY)
  const said = 'The database has no leaderboard_submit routine (restored from a dump made without routines?)'
  // As migration 0161 made it: writing the connection's count slot.
  createRoutine(db, { slots: true }).then(
    () => {
      markRoutineBack(db, ROUTINE)
      events.notify(db, 'submitRoutineMissing', true, `${said}: created it again.`)
    },
    (error: unknown) => {
      markRoutineMissing(db, ROUTINE, RETRY_MS)
      events.notify(
        db,
        'submitRoutineMissing',
        false,
        `${said}, and creating it failed (${(error as Error).message}): score submits take several round ` +
          'trips instead of one meanwhile, and try the routine again in a minute. Grant the database user ' +
          'the right to create routines, or restore a dump that includes the routines (docs/deployment.md, backups).',
      )
    },
  )
}

/** The submit's answer when the routine wrote the entry or found it unchanged, else the view to go on from. */
export type RoutineOutcome = SubmitResult | { view: SubmitView }

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
  events: EventSender,
  input: {
    userId: string
    boardKey: string
    score: number
    metadata: string | null
    now: number
    validated: boolean
    checkUser: boolean
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
    raising: events.raising ? 1 : 0,
  }
  let row: RoutineRow | undefined
  try {
    row = await retryOnConflict(() => call.first(db, values))
  } catch (error) {
    if (isForeignKeyViolation(error) || isUniqueViolation(error)) return null
    if (isMissingRoutine(error)) {
      restoreRoutine(db, events)
      return null
    }
    throw error
  }
  if (!row) throw new Error('the leaderboard_submit routine answered no row')
  if (row.r_outcome !== 'written' && row.r_outcome !== 'unchanged') return { view: viewOf(row) }
  const improved = row.r_outcome === 'written'
  const position = num(improved ? row.r_position! : row.r_e_position!)
  if (improved) {
    // As after the transaction of submit.ts's writes: committed, so notified once. An entry that
    // moved up leaves every position above its new one as it was.
    const movedUp = row.r_e_rank_score !== null && num(row.r_rank!) < num(row.r_e_rank_score)
    events.notify(db, 'boardChanged', row.r_id!, movedUp ? position : 1)
  }
  return {
    leaderboardKey: row.r_board_key,
    score: num(improved ? row.r_stored! : row.r_e_score!),
    submittedScore: input.score,
    improved,
    position,
  }
}
