import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { Db } from '../../db/types.js'
import type { ResetSchedule } from './tables.js'
import { addOnConflict, bitAnd, countSlot, signedInteger } from '../../db/dialect.js'
import { prepared, preparedFamily } from '../../db/prepared.js'
import { table } from '../../db/games.js'

/**
 * The rank structure kept beside the entries: a radix count tree in `leaderboard_counts`.
 *
 * Every entry has a rank score r (smaller is better: −score on desc boards) in ±(2^53−1), and a key
 * k = r + 2^53 in [1, 2^54): 6 digits of 9 bits. For each board period, row (level l, prefix p) holds
 * how many visible entries have a key whose first l digits are p; level 6 is the whole key (stored as
 * r itself, which sorts the same and stays a safe JS integer); level 0, prefix 0 is the total.
 *
 * - Entries strictly better than r: for each level, SUM(n) over the siblings of r's digit on the
 *   better side under the same parent — one range of at most 511 rows per level, read by primary key
 *   in a single query. Equal scores are then ordered by an index seek on (rank_score, reached_at,
 *   user_id) over the entries with exactly that score. Position = better + ties + 1. Neither step
 *   reads the board: the cost is bounded by 6 × 511 count rows whatever the board size.
 * - Writes: an insert adds +1 on the 7 rows of its key, a removal −1, a score change −1 on the old
 *   key's rows and +1 on the new key's, dropping the levels where both share a prefix. All of it is one
 *   multi-row upsert (n = n + delta) in the transaction that writes the entry, so concurrent writers on
 *   any number of instances keep the counts exact.
 * - Slots: a count is the sum of its rows over `slot`. Each node of a Galera cluster writes the slot
 *   of its own (`countSlot`), so submits through two nodes never change one row, which the cluster
 *   would abort as a conflict: every first entry changes the rows near the root. Any other server
 *   writes slot 0 alone, one row per count as before (measured in docs/performance.md,
 *   "Hot counters on a Galera cluster"). Every read sums: a range already did; the total, a row per slot.
 */
export const DIGIT_BITS = 9
/** Levels of the count tree: DIGIT_BITS × LEVELS bits cover the whole score key. */
export const LEVELS = 6
const KEY_BITS = BigInt(DIGIT_BITS * LEVELS)
const OFFSET = 1n << 53n

type Values = Record<string, string | number>

/** One count of the tree: the entries under a prefix at a level. */
export interface CountRow {
  level: number
  prefix: number
  n: number
}

const key = (rankScore: number) => BigInt(rankScore) + OFFSET
const prefixAt = (k: bigint, level: number) => k >> (KEY_BITS - BigInt(DIGIT_BITS * level))

/** The count rows one entry with this rank score contributes to. */
export function countRowsOf(rankScore: number): Array<[number, number]> {
  const k = key(rankScore)
  const rows: Array<[number, number]> = [[0, 0]]
  for (let level = 1; level < LEVELS; level++) rows.push([level, Number(prefixAt(k, level))])
  rows.push([LEVELS, rankScore])
  return rows
}

/** The count changes of an entry moving from one rank score to another (null: absent). */
export function countDeltas(from: number | null, to: number | null): CountRow[] {
  const deltas = new Map<string, CountRow>()
  const add = (rankScore: number | null, n: number) => {
    if (rankScore === null) return
    for (const [level, prefix] of countRowsOf(rankScore)) {
      const id = `${level}:${prefix}`
      const row = deltas.get(id) ?? { level, prefix, n: 0 }
      row.n += n
      deltas.set(id, row)
    }
  }
  add(from, -1)
  add(to, 1)
  // A fixed order of row locks keeps concurrent writers from deadlocking each other on MySQL.
  return [...deltas.values()].filter((r) => r.n !== 0).sort((a, b) => a.level - b.level || a.prefix - b.prefix)
}

/** Adds n to each of `rows` count rows (creating those that are missing): one upsert per row count. */
const addToCounts = preparedFamily(
  (rows: number) => (db, p: Values) =>
    addOnConflict(
      db,
      'leaderboard_counts',
      db.insertInto('leaderboard_counts').values(
        Array.from({ length: rows }, (_, i) => ({
          board_id: p.boardId as string,
          period: p.period as string,
          level: p[`l${i}`] as number,
          prefix: p[`p${i}`] as number,
          slot: countSlot(db),
          n: p[`n${i}`] as number,
        })),
      ),
      ['board_id', 'period', 'level', 'prefix', 'slot'],
      'n',
    ),
)

/** Adds a write's deltas in one upsert, in the caller's transaction, so concurrent writers keep the counts exact. */
export async function applyCounts(db: Db, boardId: string, period: string, deltas: CountRow[]) {
  if (deltas.length === 0) return
  const values: Values = { boardId, period }
  deltas.forEach((d, i) => {
    values[`l${i}`] = d.level
    values[`p${i}`] = d.prefix
    values[`n${i}`] = d.n
  })
  await addToCounts(deltas.length).execute(db, values)
}

/** The count-row ranges holding every entry strictly better than `rankScore`: [level, from, to]. */
export function betterRanges(rankScore: number): Array<[number, number, number]> {
  const k = key(rankScore)
  const ranges: Array<[number, number, number]> = []
  for (let level = 1; level < LEVELS; level++) {
    const prefix = prefixAt(k, level)
    const first = level === 1 ? 0n : prefixAt(k, level - 1) << BigInt(DIGIT_BITS)
    if (prefix > first) ranges.push([level, Number(first), Number(prefix - 1n)])
  }
  // Key 0 (rank score −2^53) is never used: the lowest sibling range starts one above it.
  const first = Math.max(Number((prefixAt(k, LEVELS - 1) << BigInt(DIGIT_BITS)) - OFFSET), -Number.MAX_SAFE_INTEGER)
  if (rankScore > first) ranges.push([LEVELS, first, rankScore - 1])
  return ranges
}

/**
 * The prefixes of the count rows one level below `parent` (a prefix of level `level` − 1), lowest
 * first: [from, to]. At the last level they are rank scores.
 */
export function childRange(level: number, parent: bigint): [number, number] {
  const first = parent << BigInt(DIGIT_BITS)
  const last = first + BigInt((1 << DIGIT_BITS) - 1)
  if (level < LEVELS) return [Number(first), Number(last)]
  const bound = BigInt(Number.MAX_SAFE_INTEGER)
  const clamp = (k: bigint) => Number(k - OFFSET < -bound ? -bound : k - OFFSET > bound ? bound : k - OFFSET)
  return [clamp(first), clamp(last)]
}

const total = prepared((db, p: { boardId: string; period: string }) =>
  db
    .selectFrom('leaderboard_counts')
    .select((eb) => eb.fn.sum<number | string | null>('n').as('n'))
    .where('board_id', '=', p.boardId)
    .where('period', '=', p.period)
    .where('level', '=', 0)
    .where('prefix', '=', 0),
)

/** A board period's entry count, read from the tree's root instead of counting rows. */
export async function totalEntries(db: Db, boardId: string, period: string) {
  const row = await total.first(db, { boardId, period })
  return Number(row?.n ?? 0)
}

/** The columns an entry sorts by: score, then who reached it first, then the user id. */
export interface SortKey {
  rank_score: number
  reached_at: number
  user_id: string
}

/**
 * 1-based position of a visible entry, in one statement: the entries with a better score summed from
 * the tree (one primary-key range of count rows per level, at most 6 levels), plus the entries with
 * the same score ordered before it, found by an index seek on (rank_score, reached_at, user_id).
 * One statement per number of levels (0 to 6).
 */
const position = preparedFamily((levels: number) => (db, p: Values) => {
  // The ranges are joined by UNION ALL: SQLite reads an OR of such ranges by scanning every count
  // row of the board period instead.
  const ranges = Array.from(
    { length: levels },
    (_, i) =>
      sql`select n from ${table(db, 'leaderboard_counts')} where board_id = ${p.boardId} and period = ${p.period} and level = ${p[`l${i}`]} and prefix >= ${p[`f${i}`]} and prefix <= ${p[`t${i}`]}`,
  )
  const better =
    levels === 0 ? sql`0` : sql`(select coalesce(sum(n), 0) from (${sql.join(ranges, sql` union all `)}) as better)`
  const ties = sql`(select count(*) from ${table(db, 'leaderboard_entries')} where board_id = ${p.boardId} and period = ${p.period} and hidden = 0 and rank_score = ${p.rankScore} and (reached_at < ${p.reachedAt} or (reached_at = ${p.reachedAt} and user_id < ${p.userId})))`
  // The period's total rides along (a primary-key read, one row per slot): the rank answer shows it.
  const total = sql`(select sum(n) from ${table(db, 'leaderboard_counts')} where board_id = ${p.boardId} and period = ${p.period} and level = 0 and prefix = 0)`
  const query = sql<{
    n: number | string
    total: number | string | null
  }>`select ${better} + ${ties} as n, ${total} as total`
  return { compile: () => query.compile(db) }
})

/**
 * The position of `entry`. `uncounted` names a rank score the tree still counts for this entry but
 * should not (its old score, when the caller moves the entry in the tree only after this read): it
 * is taken off when it is better than the entry's.
 */
export async function positionOf(db: Db, boardId: string, period: string, entry: SortKey, uncounted?: number) {
  return (await positionAndTotal(db, boardId, period, entry, uncounted)).position
}

/** `positionOf`, and the number of visible entries in the period, in the same statement. */
export async function positionAndTotal(
  db: Db,
  boardId: string,
  period: string,
  entry: SortKey,
  uncounted?: number,
): Promise<{ position: number; total: number }> {
  const ranges = betterRanges(entry.rank_score)
  const values: Values = {
    boardId,
    period,
    rankScore: entry.rank_score,
    reachedAt: entry.reached_at,
    userId: entry.user_id,
  }
  ranges.forEach(([level, from, to], i) => {
    values[`l${i}`] = level
    values[`f${i}`] = from
    values[`t${i}`] = to
  })
  const row = await position(ranges.length).first(db, values)
  const stale = uncounted !== undefined && uncounted < entry.rank_score ? 1 : 0
  return { position: Number(row?.n ?? 0) - stale + 1, total: Number(row?.total ?? 0) }
}

/**
 * The position of the entry whose sort key is given by SQL expressions, as one SQL expression: the
 * same sum as `positionAndTotal` (count-tree ranges, then ties), with each range's bounds computed in
 * SQL from the rank score. Meant for a row the statement reads by primary key (the submit's view):
 * the databases then treat its columns as constants, and each range is an index range of at most 511
 * count rows. Sums of scalar subqueries, not a UNION: MariaDB lets no derived table see outer columns.
 * MySQL's bit operators answer unsigned numbers: the one difference that can go below 0 is cast back
 * (`signed`), and PostgreSQL types a bound parameter only from its context (`bitAnd`).
 */
export function positionSql(
  db: Kysely<any>,
  e: {
    boardId: RawBuilder<unknown>
    period: RawBuilder<unknown>
    rankScore: RawBuilder<unknown>
    reachedAt: RawBuilder<unknown>
    userId: RawBuilder<unknown>
  },
): RawBuilder<number> {
  const k = sql`(${e.rankScore} + ${sql.lit(Number(OFFSET))})`
  const counts = (level: number, from: RawBuilder<unknown>, below: RawBuilder<unknown>) =>
    sql`(select coalesce(sum(n), 0) from ${table(db, 'leaderboard_counts')} where board_id = ${e.boardId} and period = ${e.period} and level = ${sql.lit(level)} and prefix >= ${from} and prefix < ${below})`
  const parts: Array<RawBuilder<unknown>> = []
  for (let level = 1; level < LEVELS; level++) {
    const shift = Number(KEY_BITS) - DIGIT_BITS * level
    const from = level === 1 ? sql`0` : sql`((${k} >> ${sql.lit(shift + DIGIT_BITS)}) << ${sql.lit(DIGIT_BITS)})`
    parts.push(counts(level, from, sql`(${k} >> ${sql.lit(shift)})`))
  }
  parts.push(
    // The bits are made signed before the subtraction: on MySQL an unsigned difference below 0 is an error.
    counts(LEVELS, sql`(${e.rankScore} - ${signedInteger(db, bitAnd(db, k, (1 << DIGIT_BITS) - 1))})`, e.rankScore),
  )
  parts.push(
    sql`(select count(*) from ${table(db, 'leaderboard_entries')} where board_id = ${e.boardId} and period = ${e.period} and hidden = 0 and rank_score = ${e.rankScore} and (reached_at < ${e.reachedAt} or (reached_at = ${e.reachedAt} and user_id < ${e.userId})))`,
  )
  return sql<number>`(${sql.join(parts, sql` + `)} + 1)`
}

/** `positionSql` of the leaderboard entry row read under `alias` in the same statement. */
export const entryPositionSql = (db: Kysely<any>, alias: string): RawBuilder<number> =>
  positionSql(db, {
    boardId: sql.ref(`${alias}.board_id`),
    period: sql.ref(`${alias}.period`),
    rankScore: sql.ref(`${alias}.rank_score`),
    reachedAt: sql.ref(`${alias}.reached_at`),
    userId: sql.ref(`${alias}.user_id`),
  })

/**
 * Rebuilds a board's counts from its entries (after the sort order flipped every rank score). One
 * grouped INSERT … SELECT per level; the prefix arithmetic is the same in SQLite and MySQL.
 */
export async function rebuildCounts(db: Db, boardId: string) {
  await db.deleteFrom('leaderboard_counts').where('board_id', '=', boardId).execute()
  for (let level = 0; level <= LEVELS; level++) {
    const shift = Number(KEY_BITS) - DIGIT_BITS * level
    const prefix =
      level === 0
        ? sql<number>`0`
        : level === LEVELS
          ? sql<number>`rank_score`
          : sql<number>`(rank_score + ${sql.lit(Number(OFFSET))}) >> ${sql.lit(shift)}`
    await db
      .insertInto('leaderboard_counts')
      .columns(['board_id', 'period', 'level', 'prefix', 'n'])
      .expression((eb) =>
        eb
          .selectFrom('leaderboard_entries')
          .select([
            'board_id',
            'period',
            sql<number>`${sql.lit(level)}`.as('level'),
            prefix.as('prefix'),
            eb.fn.countAll<number>().as('n'),
          ])
          .where('board_id', '=', boardId)
          .where('hidden', '=', 0)
          // A bare literal in GROUP BY is a column number to SQLite: level 0 groups by period alone.
          .groupBy(level === 0 ? ['board_id', 'period'] : ['board_id', 'period', prefix]),
      )
      .execute()
  }
}

// ---- periods ----------------------------------------------------------------------------------

const DAY = 24 * 3600 * 1000
const pad = (n: number) => String(n).padStart(2, '0')

function isoWeek(mondayMs: number): string {
  // The ISO week belongs to the year of its Thursday.
  const thursday = new Date(mondayMs + 3 * DAY)
  const year = thursday.getUTCFullYear()
  const week = Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / (7 * DAY)) + 1
  return `${year}-W${pad(week)}`
}

function periodStart(schedule: ResetSchedule, now: number): number {
  const day = Math.floor(now / DAY) * DAY
  if (schedule === 'daily') return day
  if (schedule === 'weekly') return day - ((new Date(day).getUTCDay() + 6) % 7) * DAY
  const d = new Date(now)
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)
}

/** The period a board's entries are written to now: periods start at 00:00 UTC, weeks on Monday. */
export function periodKey(schedule: ResetSchedule, now: number): string {
  if (schedule === 'none') return 'all'
  const start = periodStart(schedule, now)
  const d = new Date(start)
  if (schedule === 'daily') return d.toISOString().slice(0, 10)
  if (schedule === 'weekly') return isoWeek(start)
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}`
}

/** The last finished period, or null for a board that never resets. */
export function previousPeriodKey(schedule: ResetSchedule, now: number): string | null {
  if (schedule === 'none') return null
  return periodKey(schedule, periodStart(schedule, now) - 1)
}
