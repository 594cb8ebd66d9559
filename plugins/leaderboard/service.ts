import { sql, type Transaction } from 'kysely'
import type { Database, Db, Leaderboard, LeaderboardEntry } from '../../db/types.js'
import { affected, forUpdate, insertOrLock, isMysql } from '../../db/dialect.js'
import { withTransaction } from '../../db/transaction.js'
import { prepared, preparedFamily } from '../../db/prepared.js'
import { AppError, badRequest, notFound } from '../core/errors.js'
import { toIso } from '../core/clock.js'
import { refreshedOrLast } from '../content/content-cache.js'
import type { BoardEvents } from '../core/events.js'
import { userNames } from '../users/service.js'
import { publicProfiles } from '../player-profile/service.js'
import { MAX_SCORE, type BoardSummary, type Entry, type TopResponse } from '../../schemas/leaderboard.js'
import type { TopPageCache } from './top-cache.js'
import { rankScoreOf, removeEntries } from './entries.js'
import {
  applyCounts,
  countDeltas,
  periodKey,
  positionAndTotal,
  positionOf,
  previousPeriodKey,
  totalEntries,
  type SortKey,
} from './ranking.js'

/**
 * Leaderboards: the score write (also used by validated runs) and the reads. Entries hold scores only;
 * names and profiles are read from their features when a page is answered, so a change shows at once.
 */
export type Period = 'current' | 'previous'

export const METADATA_MAX_BYTES = 2048

const boardByKey = prepared((db, p: { boardKey: string }) =>
  db.selectFrom('leaderboards').selectAll().where('board_key', '=', p.boardKey),
)

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
const boardForSubmit = prepared((db, p: { boardKey: string; userId: string }) =>
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

/** The player is banned from the board: validated runs check it before a ticket is used. */
export async function isBannedFromBoard(db: Db, boardId: string, userId: string): Promise<boolean> {
  return (await banOf.first(db, { boardId, userId })) !== undefined
}

// ---- the score write --------------------------------------------------------------------------

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
}

export interface SubmitResult {
  leaderboardKey: string
  score: number
  submittedScore: number
  improved: boolean
  position: number
}

type EntryKey = { boardId: string; period: string; userId: string }
type EntryWrite = EntryKey & { score: number; rankScore: number; metadata: string | null; now: number }

/** Creates a hidden placeholder entry, or write-locks the existing one (see `submitScore`). */
const placeholderEntry = (db: Db, p: EntryWrite) =>
  insertOrLock(
    db,
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

/** SQLite: the same upsert answering the row as it now stands, which saves the read that follows on MySQL. */
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
 */
export async function submitScore(db: Db, events: BoardEvents, input: SubmitInput): Promise<SubmitResult> {
  const { score, now } = input
  const metadata = serializedMetadata(input.metadata)
  return withTransaction(db, async (trx) => {
    const found = await boardForSubmit.first(trx, { boardKey: input.boardKey, userId: input.userId })
    if (!found || found.is_active !== 1) throw boardNotFound(input.boardKey)
    const { banned, ...board } = found
    if (board.validated_only === 1 && !input.validated) {
      throw new AppError(403, 'VALIDATED_SUBMIT_REQUIRED', 'This leaderboard accepts scores from validated runs only')
    }
    if (banned !== null) {
      throw new AppError(403, 'PLAYER_BANNED', 'The player is banned from this leaderboard')
    }
    if (score < board.min_score || score > board.max_score) {
      throw badRequest(`body/score must be between ${board.min_score} and ${board.max_score}`, '/score')
    }

    const period = periodKey(board.reset_schedule, now)
    const key = { boardId: board.id, period, userId: input.userId }
    const placeholder = { ...key, score, rankScore: rankScoreOf(board, score), metadata, now }
    let current: Pick<LeaderboardEntry, 'score' | 'rank_score' | 'reached_at' | 'hidden'> | undefined
    if (isMysql(trx)) {
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
    await applyCounts(trx, board.id, period, countDeltas(wasCounted ? current.rank_score : null, entry.rank_score))
    // An entry that moved up leaves every position above its new one as it was. One that is new or
    // shown again (the total changes) or moved down (the entries it passed move up) may change any page.
    // On MySQL the position was read in this transaction's snapshot: a concurrent move up can only put
    // the entry lower than that, never higher, so the mark still covers it.
    const movedUp = wasCounted && entry.rank_score < current.rank_score
    events.boardChanged(trx, board.id, movedUp ? position : 1)
    return { leaderboardKey: board.board_key, score: stored, submittedScore: score, improved, position }
  })
}

// ---- reads ------------------------------------------------------------------------------------

type EntryRow = Pick<LeaderboardEntry, 'user_id' | 'score' | 'reached_at'> & { position: number }

/** Names and profiles for a page of entries: two queries whatever the page size. */
async function toEntries(db: Db, rows: EntryRow[]): Promise<Entry[]> {
  const ids = rows.map((r) => r.user_id)
  const [names, profiles] = await Promise.all([userNames(db, ids), publicProfiles(db, ids)])
  return rows.map((r) => ({
    position: r.position,
    userId: r.user_id,
    username: names.get(r.user_id) ?? '',
    score: r.score,
    updatedAt: toIso(r.reached_at),
    profile: profiles.get(r.user_id)!,
  }))
}

const entryColumns = ['user_id', 'score', 'rank_score', 'reached_at'] as const

type BoardPeriod = { boardId: string; period: string }

function visible(db: Db, boardId: string, period: string) {
  return db
    .selectFrom('leaderboard_entries')
    .select(entryColumns)
    .where('board_id', '=', boardId)
    .where('period', '=', period)
    .where('hidden', '=', 0)
}

/** A page of the board from the top: one statement per page size (1 to 100). */
const topPage = preparedFamily(
  (limit: number) => (db, p: BoardPeriod & { offset: number }) =>
    visible(db, p.boardId, p.period)
      .orderBy('rank_score')
      .orderBy('reached_at')
      .orderBy('user_id')
      .limit(limit)
      .offset(p.offset),
)

const entryOf = prepared((db, p: BoardPeriod & { userId: string }) =>
  visible(db, p.boardId, p.period).where('user_id', '=', p.userId),
)

type TopOptions = { limit: number; offset: number; period: Period }

async function topOfBoard(
  db: Db,
  board: Leaderboard,
  period: string | null,
  options: TopOptions,
): Promise<TopResponse> {
  if (period === null) return { leaderboardKey: board.board_key, entries: [], total: 0 }
  const [rows, total] = await Promise.all([
    topPage(options.limit).all(db, { boardId: board.id, period, offset: options.offset }),
    totalEntries(db, board.id, period),
  ])
  const entries = await toEntries(
    db,
    rows.map((r, i) => ({ ...r, position: options.offset + i + 1 })),
  )
  return { leaderboardKey: board.board_key, entries, total }
}

/**
 * A top page as its serialized body (`serialize` is the route's serializer): from the cache while it
 * holds a current copy for the same period (see top-cache.ts), else read and kept there. Errors
 * (an unknown or inactive board) are never cached.
 */
export async function topEntries(
  db: Db,
  cache: TopPageCache,
  boardKey: string,
  options: TopOptions,
  now: number,
  serialize: (page: TopResponse) => string,
): Promise<string> {
  const key = `${boardKey}\u0000${options.period}\u0000${options.limit}\u0000${options.offset}`
  const hit = cache.get(key)
  const copy = hit && readPeriod(hit.page, options.period, now) === hit.page.period ? hit : undefined
  cache.counted(copy !== undefined && !copy.stale)
  if (copy && !copy.stale) return copy.page.json
  const lastPosition = options.offset + options.limit
  const read = cache.read(key, lastPosition, async (readAt) => {
    const board = await activeBoard(db, boardKey)
    const period = readPeriod(board, options.period, now)
    const json = serialize(await topOfBoard(db, board, period, options))
    cache.set(key, { json, boardId: board.id, reset_schedule: board.reset_schedule, period, lastPosition }, readAt)
    return json
  })
  return copy ? refreshedOrLast(read.json, copy.page.json, read.startedAt) : read.json
}

async function playerEntry(db: Db, board: Leaderboard, period: string | null, userId: string) {
  const [names, row] = await Promise.all([
    userNames(db, [userId]),
    period === null ? Promise.resolve(undefined) : entryOf.first(db, { boardId: board.id, period, userId }),
  ])
  const username = names.get(userId)
  if (username === undefined) throw notFound('USER_NOT_FOUND', 'User not found')
  return { username, row }
}

export async function rankOf(db: Db, boardKey: string, userId: string, which: Period, now: number) {
  const board = await activeBoard(db, boardKey)
  const period = readPeriod(board, which, now)
  const { username, row } = await playerEntry(db, board, period, userId)
  const [profiles, { position, total }] = await Promise.all([
    publicProfiles(db, [userId]),
    period === null
      ? { position: 0, total: 0 }
      : row
        ? positionAndTotal(db, board.id, period, row)
        : totalEntries(db, board.id, period).then((n) => ({ position: 0, total: n })),
  ])
  return {
    leaderboardKey: board.board_key,
    position,
    userId,
    username,
    score: row?.score ?? 0,
    profile: profiles.get(userId)!,
    total,
    ranked: row !== undefined,
  }
}

/** Up to `range` entries ranked just before the given one, nearest first. */
const entriesAbove = (db: Db, p: BoardPeriod & SortKey, range: number) =>
  visible(db, p.boardId, p.period)
    .where('rank_score', '<=', p.rank_score)
    .where((eb) =>
      eb.or([
        eb('rank_score', '<', p.rank_score),
        eb.and([eb('rank_score', '=', p.rank_score), eb('reached_at', '<', p.reached_at)]),
        eb.and([
          eb('rank_score', '=', p.rank_score),
          eb('reached_at', '=', p.reached_at),
          eb('user_id', '<', p.user_id),
        ]),
      ]),
    )
    .orderBy('rank_score', 'desc')
    .orderBy('reached_at', 'desc')
    .orderBy('user_id', 'desc')
    .limit(range)

/** Up to `range` entries ranked just after the given one, nearest first. */
const entriesBelow = (db: Db, p: BoardPeriod & SortKey, range: number) =>
  visible(db, p.boardId, p.period)
    .where('rank_score', '>=', p.rank_score)
    .where((eb) =>
      eb.or([
        eb('rank_score', '>', p.rank_score),
        eb.and([eb('rank_score', '=', p.rank_score), eb('reached_at', '>', p.reached_at)]),
        eb.and([
          eb('rank_score', '=', p.rank_score),
          eb('reached_at', '=', p.reached_at),
          eb('user_id', '>', p.user_id),
        ]),
      ]),
    )
    .orderBy('rank_score')
    .orderBy('reached_at')
    .orderBy('user_id')
    .limit(range)

/**
 * Both neighbourhoods in one statement (each a keyset seek, wrapped so that it keeps its own ORDER BY
 * and LIMIT), in board order: the `range` entries before the given one, then the `range` after it.
 */
const entriesAround = preparedFamily(
  (range: number) => (db, p: BoardPeriod & SortKey) =>
    db
      .selectFrom(entriesAbove(db, p, range).as('above'))
      .select([...entryColumns, sql<number>`1`.as('before')])
      .unionAll(
        db.selectFrom(entriesBelow(db, p, range).as('below')).select([...entryColumns, sql<number>`0`.as('before')]),
      )
      .orderBy('rank_score')
      .orderBy('reached_at')
      .orderBy('user_id'),
)

/** The player and up to `range` entries either side: the position from the tree, keyset seeks around it. */
export async function aroundOf(db: Db, boardKey: string, userId: string, range: number, which: Period, now: number) {
  const board = await activeBoard(db, boardKey)
  const period = readPeriod(board, which, now)
  // An entry is proof enough that the player exists (entries go with their user); only a player
  // without one costs the extra lookup that tells an unknown user from an unranked one.
  const me = period === null ? undefined : await entryOf.first(db, { boardId: board.id, period, userId })
  if (!me || period === null) {
    await playerEntry(db, board, null, userId)
    return { leaderboardKey: board.board_key, entries: [] }
  }
  const [position, neighbours] = await Promise.all([
    positionOf(db, board.id, period, me),
    entriesAround(range).all(db, { boardId: board.id, period, ...me }),
  ])
  const above = neighbours.filter((r) => Number(r.before) === 1)
  const below = neighbours.filter((r) => Number(r.before) === 0)
  const rows: EntryRow[] = [
    ...above.map((r, i) => ({ ...r, position: position - above.length + i })),
    { ...me, position },
    ...below.map((r, i) => ({ ...r, position: position + i + 1 })),
  ]
  return { leaderboardKey: board.board_key, entries: await toEntries(db, rows) }
}

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
    .select(['board_id', 'period', 'n'])
    .where('board_id', 'in', [...periods.keys()])
    .where('period', 'in', [...new Set(periods.values())])
    .where('level', '=', 0)
    .where('prefix', '=', 0)
    .execute()
  return new Map(rows.filter((r) => periods.get(r.board_id) === r.period).map((r) => [r.board_id, Number(r.n)]))
}

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

/** A user is being deleted: the cascade removes their entries but cannot update the count tree. */
export async function removeDeletedUserEntries(
  trx: Transaction<Database>,
  events: BoardEvents,
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
  events: BoardEvents,
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
  events: BoardEvents,
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

/** The player's entries on every board and their board bans, for their data export. */
export async function exportForUser(db: Db, userId: string) {
  const [entries, bans] = await Promise.all([
    db
      .selectFrom('leaderboard_entries as e')
      .innerJoin('leaderboards as b', 'b.id', 'e.board_id')
      .select(['b.board_key', 'e.period', 'e.score', 'e.reached_at', 'e.hidden', 'e.metadata', 'e.created_at'])
      .where('e.user_id', '=', userId)
      .where('e.reached_at', '>=', 0)
      .orderBy('b.board_key')
      .orderBy('e.period')
      .execute(),
    db
      .selectFrom('leaderboard_bans as x')
      .innerJoin('leaderboards as b', 'b.id', 'x.board_id')
      .select(['b.board_key', 'x.reason', 'x.created_at'])
      .where('x.user_id', '=', userId)
      .orderBy('b.board_key')
      .execute(),
  ])
  return {
    entries: entries.map((e) => ({
      leaderboardKey: e.board_key,
      period: e.period,
      score: Number(e.score),
      reachedAt: toIso(Number(e.reached_at)),
      hidden: e.hidden === 1,
      metadata: e.metadata === null ? null : (JSON.parse(e.metadata) as unknown),
      createdAt: toIso(Number(e.created_at)),
    })),
    bans: bans.map((b) => ({ leaderboardKey: b.board_key, reason: b.reason, bannedAt: toIso(Number(b.created_at)) })),
  }
}
