import { type Transaction } from 'kysely'
import type { Database, Db } from '../../db/types.js'
import type { Leaderboard, LeaderboardEntry } from './tables.js'
import {
  affected,
  forUpdate,
  insertOrLock,
  isForeignKeyViolation,
  isUniqueViolation,
  supportsReturning,
} from '../../db/dialect.js'
import { inTransaction, withTransaction } from '../../db/transaction.js'
import { prepared } from '../../db/prepared.js'
import { AppError, badRequest } from '../../platform/core/errors.js'
import type { EventSender } from '../../platform/core/events.js'
import { MAX_SCORE } from './schemas.js'
import { rankScoreOf } from './entries.js'
import { applyCounts, countDeltas, periodKey, positionOf, type SortKey } from './ranking.js'
import { boardForSubmit, boardNotFound, METADATA_MAX_BYTES } from './boards.js'
import { assertActive, standingOf } from '../../platform/security/session-store.js'
import { userNames } from '../users/service.js'
import {
  casEntry,
  insertFirstEntry,
  readSubmitView,
  type SubmitInput,
  type SubmitResult,
  type SubmitView,
  type ViewedEntry,
} from './submit-view.js'
import { hasSubmitRoutine, submitByRoutine } from './submit-routine.js'

export type { SubmitInput, SubmitResult } from './submit-view.js'

type EntryKey = { boardId: string; period: string; userId: string }
type EntryWrite = EntryKey & { score: number; rankScore: number; metadata: string | null; now: number }

/** Creates a hidden placeholder entry, or write-locks the existing one (see `submitScore`). */
const placeholderEntry = (db: Db, p: EntryWrite) =>
  insertOrLock(
    db,
    'leaderboard_entries',
    db.insertInto('leaderboard_entries').values({
      board_id: p.boardId,
      period: p.period,
      user_id: p.userId,
      score: p.score,
      rank_score: p.rankScore,
      reached_at: -1,
      hidden: 1,
      metadata: p.metadata,
      created_at: p.now,
    }),
    ['board_id', 'period', 'user_id'],
    'hidden',
  )

const lockEntry = prepared(placeholderEntry)

/** Where INSERT … RETURNING exists: the same upsert answering the row as it now stands, which saves the read that follows. */
const lockAndReadEntry = prepared((db, p: EntryWrite) =>
  placeholderEntry(db, p).returning(['score', 'rank_score', 'reached_at', 'hidden']),
)

const entryWhere = <QB extends { where: (...args: any[]) => QB }>(qb: QB, p: EntryKey): QB =>
  qb.where('board_id', '=', p.boardId).where('period', '=', p.period).where('user_id', '=', p.userId)

const currentEntry = prepared((db, p: EntryKey) =>
  forUpdate(
    db,
    entryWhere(db.selectFrom('leaderboard_entries').select(['score', 'rank_score', 'reached_at', 'hidden']), p),
  ),
)

const writeEntry = prepared((db, p: EntryWrite) =>
  entryWhere(
    db
      .updateTable('leaderboard_entries')
      .set({ score: p.score, rank_score: p.rankScore, reached_at: p.now, hidden: 0, metadata: p.metadata }),
    p,
  ),
)

/** A submit's metadata as stored (JSON text), or null; over METADATA_MAX_BYTES is a validation error. */
export function serializedMetadata(metadata: SubmitInput['metadata']): string | null {
  const text = metadata === undefined || metadata === null ? null : JSON.stringify(metadata)
  if (text !== null && Buffer.byteLength(text) > METADATA_MAX_BYTES) {
    throw badRequest(`body/metadata must be at most ${METADATA_MAX_BYTES} bytes serialized`, '/metadata')
  }
  return text
}

/**
 * Writes a score under the board's strategy, bounds, bans and validatedOnly rule, and answers the
 * stored score and the player's position. Pass a transaction to make it part of the caller's.
 *
 * The entry row is created or write-locked first by one upsert, so concurrent submits for one player
 * run one after the other from there on (the first one inserts a placeholder row that no reader can
 * see: hidden, reached_at −1). Each then compares against the committed score and writes the new one
 * in the same transaction as the count tree: `best` never loses the best, `increment` never adds twice.
 *
 * On a database server a submit outside a transaction goes first to the stored routine
 * (submit-routine.ts), which reads the view and, in the common case, writes the entry and the tree in
 * one round trip; otherwise it answers the view, and the submit goes on from there as below.
 */
export async function submitScore(db: Db, events: EventSender, input: SubmitInput): Promise<SubmitResult> {
  const metadata = serializedMetadata(input.metadata)
  if (!db.isTransaction || input.checkUser) {
    let seen: SubmitView | undefined
    if (!input.onlyNew && hasSubmitRoutine(db, input.userId, input.boardKey)) {
      const outcome = await submitByRoutine(db, events, { ...input, metadata, checkUser: input.checkUser === true })
      if (outcome && 'position' in outcome) return outcome
      seen = outcome?.view
    }
    seen ??= await readSubmitView(db, input.userId, input.boardKey, input.now)
    if (input.checkUser) assertActive(standingOf(seen.user ?? undefined))
    // An unknown player the caller vouched for is left to the write (and its foreign key), as before.
    if (seen.user) {
      const board = checkedBoard(seen.board, input)
      const entry = seen.entry
      if (!db.isTransaction && entry === null) {
        const result = await submitFirst(db, events, input, metadata, board)
        if (result) return result
      } else if (!db.isTransaction && !input.onlyNew && entry && entry.hidden === 0 && entry.reached_at !== -1) {
        const result = await submitOverView(db, events, input, metadata, board, entry)
        if (result) return result
      }
    }
  }
  return submitLocked(db, events, input, metadata)
}

/** The board a submit may write to, or the error that says why not (in the order the API documents). */
function checkedBoard(
  found: (Leaderboard & { banned: string | null }) | null | undefined,
  input: SubmitInput,
): Leaderboard {
  if (!found || found.is_active !== 1) throw boardNotFound(input.boardKey)
  const { banned, ...board } = found
  if (board.validated_only === 1 && !input.validated) {
    throw new AppError(403, 'VALIDATED_SUBMIT_REQUIRED', 'This leaderboard accepts scores from validated runs only')
  }
  if (banned !== null) {
    throw new AppError(403, 'PLAYER_BANNED', 'The player is banned from this leaderboard')
  }
  if (input.score < board.min_score || input.score > board.max_score) {
    throw badRequest(`body/score must be between ${board.min_score} and ${board.max_score}`, '/score')
  }
  return board
}

/**
 * A submit for a visible entry, decided on what the view read without locks: a score that changes
 * nothing answers from there (reads only); one that changes the entry writes it with a
 * compare-and-set in a short transaction with the count tree. Null when the entry changed since the
 * view (another submit came first): the caller then takes the locking way.
 */
async function submitOverView(
  db: Db,
  events: EventSender,
  input: SubmitInput,
  metadata: string | null,
  board: Leaderboard,
  current: ViewedEntry,
): Promise<SubmitResult | null> {
  const { score, now } = input
  const period = periodKey(board.reset_schedule, now)
  let stored = score
  if (board.update_strategy === 'best') {
    stored = rankScoreOf(board, score) < current.rank_score ? score : current.score
  } else if (board.update_strategy === 'increment') {
    stored = current.score + score
    // Judged again under the lock: the view may be behind.
    if (Math.abs(stored) > MAX_SCORE) return null
  }
  const entry: SortKey = { rank_score: current.rank_score, reached_at: current.reached_at, user_id: input.userId }
  const answer = (position: number, improved: boolean) => ({
    leaderboardKey: board.board_key,
    score: stored,
    submittedScore: score,
    improved,
    position,
  })
  if (stored === current.score) return answer(current.position, false)
  return inTransaction(db, async (trx) => {
    entry.rank_score = rankScoreOf(board, stored)
    entry.reached_at = now
    const written = await casEntry.execute(trx, {
      boardId: board.id,
      period,
      userId: input.userId,
      score: stored,
      rankScore: entry.rank_score,
      metadata,
      now,
      oldScore: current.score,
      oldRankScore: current.rank_score,
      oldReachedAt: current.reached_at,
    })
    if (affected(written) !== 1) return null
    // As in `submitLocked`: the position allows for the old score the tree still holds, the tree last.
    const position = await positionOf(trx, board.id, period, entry, current.rank_score)
    const previous = { ...entry, rank_score: current.rank_score, reached_at: current.reached_at }
    const tookLead = await tookFirstPlace(trx, events, board.id, period, position, previous)
    await applyCounts(trx, board.id, period, countDeltas(current.rank_score, entry.rank_score))
    events.notify(trx, 'boardChanged', board.id, entry.rank_score < current.rank_score ? position : 1)
    if (tookLead) await raiseNewLeader(trx, events, board, period, input.userId, stored)
    return answer(position, true)
  })
}

/** A first entry refused by a key (another first entry came first, the player was deleted). */
class FirstEntryRefused extends Error {}

/**
 * A player's first entry in the period, as the view found none: written visible at once, then its
 * position and the count tree, in a short transaction. Null when the insert wrote nothing (another
 * first entry came first, the board went away or the player was banned from it): the caller then
 * takes the locking way, which answers the right error.
 */
async function submitFirst(
  db: Db,
  events: EventSender,
  input: SubmitInput,
  metadata: string | null,
  board: Leaderboard,
): Promise<SubmitResult | null> {
  const { score, now, userId } = input
  const period = periodKey(board.reset_schedule, now)
  const rankScore = rankScoreOf(board, score)
  try {
    return await inTransaction(db, async (trx) => {
      try {
        const written = await insertFirstEntry.execute(trx, {
          boardId: board.id,
          period,
          userId,
          score,
          rankScore,
          metadata,
          now,
        })
        if (affected(written) !== 1) return null
      } catch (error) {
        // Thrown out of the transaction, which rolls it back, rather than caught and gone on from:
        // PostgreSQL has marked the whole transaction failed (25P02), and its commit would undo it anyway.
        if (isUniqueViolation(error) || isForeignKeyViolation(error)) throw new FirstEntryRefused()
        throw error
      }
      const position = await positionOf(trx, board.id, period, {
        rank_score: rankScore,
        reached_at: now,
        user_id: userId,
      })
      const tookLead = await tookFirstPlace(trx, events, board.id, period, position, null)
      await applyCounts(trx, board.id, period, countDeltas(null, rankScore))
      events.notify(trx, 'boardChanged', board.id, 1)
      if (tookLead) await raiseNewLeader(trx, events, board, period, userId, score)
      return { leaderboardKey: board.board_key, score, submittedScore: score, improved: true, position }
    })
  } catch (error) {
    if (error instanceof FirstEntryRefused) return null
    throw error
  }
}

/**
 * The submit under the entry's row lock: for a new entry, one in a transaction the caller holds, an
 * import, or one whose entry changed under the view.
 */
async function submitLocked(
  db: Db,
  events: EventSender,
  input: SubmitInput,
  metadata: string | null,
): Promise<SubmitResult> {
  const { score, now } = input
  return withTransaction(db, async (trx) => {
    const board = checkedBoard(
      await boardForSubmit.first(trx, { boardKey: input.boardKey, userId: input.userId }),
      input,
    )

    const period = periodKey(board.reset_schedule, now)
    const key = { boardId: board.id, period, userId: input.userId }
    const placeholder = { ...key, score, rankScore: rankScoreOf(board, score), metadata, now }
    let current: Pick<LeaderboardEntry, 'score' | 'rank_score' | 'reached_at' | 'hidden'> | undefined
    if (!supportsReturning(trx)) {
      await lockEntry.execute(trx, placeholder)
      current = await currentEntry.first(trx, key)
    } else {
      current = await lockAndReadEntry.first(trx, placeholder)
    }
    if (!current) throw new Error('leaderboard entry vanished inside its own transaction')
    const isNew = current.reached_at === -1

    let stored = score
    if (!isNew && input.onlyNew) {
      const position = await positionOf(trx, board.id, period, { ...current, user_id: input.userId })
      return { leaderboardKey: board.board_key, score: current.score, submittedScore: score, improved: false, position }
    }
    if (!isNew) {
      if (board.update_strategy === 'best') {
        stored = rankScoreOf(board, score) < current.rank_score ? score : current.score
      } else if (board.update_strategy === 'increment') {
        stored = current.score + score
        if (Math.abs(stored) > MAX_SCORE) {
          throw badRequest(`body/score would take the stored score past ${MAX_SCORE}`, '/score')
        }
      }
    }
    const improved = isNew || stored !== current.score
    const entry: SortKey = { rank_score: current.rank_score, reached_at: current.reached_at, user_id: input.userId }
    if (!improved) {
      const position = await positionOf(trx, board.id, period, entry)
      return { leaderboardKey: board.board_key, score: stored, submittedScore: score, improved, position }
    }
    entry.rank_score = rankScoreOf(board, stored)
    entry.reached_at = now
    const written = await writeEntry.execute(trx, {
      ...key,
      score: stored,
      rankScore: entry.rank_score,
      metadata,
      now,
    })
    if (affected(written) !== 1) throw new Error('leaderboard entry vanished inside its own transaction')
    const wasCounted = !isNew && current.hidden === 0
    // The position is read before the count tree moves the entry (allowing for its old score, which
    // the tree still holds), and the tree is written last: its top rows are shared by every entry of
    // the period, and on MySQL their row locks are held from this write to the commit, one round trip.
    const position = await positionOf(trx, board.id, period, entry, wasCounted ? current.rank_score : undefined)
    // First place changes hands when the entry is now first and was not before (read while the
    // count tree still holds its old score).
    const tookLead = await tookFirstPlace(
      trx,
      events,
      board.id,
      period,
      position,
      wasCounted ? { ...entry, rank_score: current.rank_score, reached_at: current.reached_at } : null,
    )
    await applyCounts(trx, board.id, period, countDeltas(wasCounted ? current.rank_score : null, entry.rank_score))
    // An entry that moved up leaves every position above its new one as it was. One that is new or
    // shown again (the total changes) or moved down (the entries it passed move up) may change any page.
    // The position was read in a snapshot (the transaction's on MySQL, the statement's on PostgreSQL
    // at READ COMMITTED): a concurrent move up can only put the entry lower than that, never higher, so
    // the mark still covers it.
    const movedUp = wasCounted && entry.rank_score < current.rank_score
    events.notify(trx, 'boardChanged', board.id, movedUp ? position : 1)
    if (tookLead) await raiseNewLeader(trx, events, board, period, input.userId, stored)
    return { leaderboardKey: board.board_key, score: stored, submittedScore: score, improved, position }
  })
}

/**
 * First place changed hands when the entry is now first and was not before. `previous` is the entry's
 * old sort key (null for an entry no reader saw); read while the count tree still holds it.
 */
async function tookFirstPlace(
  trx: Transaction<Database>,
  events: EventSender,
  boardId: string,
  period: string,
  position: number,
  previous: SortKey | null,
): Promise<boolean> {
  if (position !== 1 || !events.raising) return false
  return previous === null || (await positionOf(trx, boardId, period, previous)) !== 1
}

async function raiseNewLeader(
  trx: Transaction<Database>,
  events: EventSender,
  board: Leaderboard,
  period: string,
  userId: string,
  score: number,
): Promise<void> {
  const playerName = (await userNames(trx, [userId])).get(userId) ?? null
  await events.raise(trx, 'leaderboard.new_leader', {
    board: board.board_key,
    boardName: board.name,
    period,
    userId,
    playerName,
    score,
  })
}
