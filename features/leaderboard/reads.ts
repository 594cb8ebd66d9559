import { sql } from 'kysely'
import type { Db } from '../../db/types.js'
import type { Leaderboard, LeaderboardEntry } from './tables.js'
import { preparedFamily } from '../../db/prepared.js'
import { notFound } from '../../platform/core/errors.js'
import { toIso } from '../../platform/core/clock.js'
import { refreshedOrLast } from '../../platform/content/content-cache.js'
import { userNames } from '../users/service.js'
import { publicProfiles } from '../player-profile/service.js'
import { type Entry, type TopResponse } from './schemas.js'
import type { TopPageCache } from './top-cache.js'
import type { SortKey } from './ranking.js'
import { boardStanding, playerStanding } from './player-view.js'
import { readPeriod, type Period } from './boards.js'

/**
 * The reads: top, rank and around. Entries hold scores only; names and profiles are read from their
 * features when a page is answered, so a change shows at once.
 */
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

type TopOptions = { limit: number; offset: number; period: Period }

/** The page of a board whose total was read with it (`boardStanding`). */
async function topOfBoard(
  db: Db,
  board: Leaderboard,
  period: string | null,
  total: number,
  options: TopOptions,
): Promise<TopResponse> {
  if (period === null) return { leaderboardKey: board.board_key, entries: [], total: 0 }
  const rows = await topPage(options.limit).all(db, { boardId: board.id, period, offset: options.offset })
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
    const { board, period, total } = await boardStanding(db, boardKey, options.period, now)
    const json = serialize(await topOfBoard(db, board, period, total, options))
    cache.set(key, { json, boardId: board.id, reset_schedule: board.reset_schedule, period, lastPosition }, readAt)
    return json
  })
  return copy ? refreshedOrLast(read.json, copy.page.json, read.startedAt) : read.json
}

/** The player's name; an unknown player is 404 USER_NOT_FOUND. */
async function playerName(db: Db, userId: string): Promise<string> {
  const username = (await userNames(db, [userId])).get(userId)
  if (username === undefined) throw notFound('USER_NOT_FOUND', 'User not found')
  return username
}

/** A player's rank with their name and profile, as the SDKs' rank call answers it. */
export async function rankOf(db: Db, boardKey: string, userId: string, which: Period, now: number) {
  const { board, entry, total } = await playerStanding(db, boardKey, userId, which, now)
  const [username, profiles] = await Promise.all([playerName(db, userId), publicProfiles(db, [userId])])
  return {
    leaderboardKey: board.board_key,
    position: entry?.position ?? 0,
    userId,
    username,
    score: entry?.score ?? 0,
    profile: profiles.get(userId)!,
    total,
    ranked: entry !== null,
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
  const { board, period, entry } = await playerStanding(db, boardKey, userId, which, now)
  // An entry is proof enough that the player exists (entries go with their user); only a player
  // without one costs the extra lookup that tells an unknown user from an unranked one.
  if (!entry || period === null) {
    await playerName(db, userId)
    return { leaderboardKey: board.board_key, entries: [] }
  }
  const { position, ...me } = entry
  const neighbours = await entriesAround(range).all(db, { boardId: board.id, period, ...me })
  const above = neighbours.filter((r) => Number(r.before) === 1)
  const below = neighbours.filter((r) => Number(r.before) === 0)
  const rows: EntryRow[] = [
    ...above.map((r, i) => ({ ...r, position: position - above.length + i })),
    { ...me, position },
    ...below.map((r, i) => ({ ...r, position: position + i + 1 })),
  ]
  return { leaderboardKey: board.board_key, entries: await toEntries(db, rows) }
}
