// Board totals and the score distribution of a board's current period, for analytics. The distribution
// reads the count tree (ranking.ts) and the rank index, never the entries one by one: the quartiles
// are found by walking down the tree (one statement per level, at most 6 × 512 count rows each), the
// ends and the last scores inside the outlier fences by index seeks, and the entries below a score
// are a sum over at most 6 ranges of count rows, so a histogram of B buckets costs about ten
// statements whatever the board's size.
import { sql } from 'kysely'
import type { Db } from '../../db/types.js'
import { betterRanges, childRange, LEVELS, periodKey, totalEntries } from './ranking.js'
import { boardNotFound, findBoard, scoreCounts } from './boards.js'
import { table } from '../../db/games.js'

/** Boards, and the visible entries of every board's current period. */
export async function boardTotals(db: Db, now: number) {
  const boards = await db.selectFrom('leaderboards').selectAll().execute()
  const counts = await scoreCounts(db, boards, now)
  return { boards: boards.length, entries: [...counts.values()].reduce((a, b) => a + b, 0) }
}

/** Ranges per statement: SQLite takes at most 500 terms in one compound SELECT. */
const RANGES_PER_STATEMENT = 400

/**
 * For each rank score of `points`, the visible entries of the period strictly below it: the count-row
 * ranges of every point, tagged with the point's index, summed per index (one statement for up to
 * about 60 points, two for the 101 bounds of 100 buckets).
 */
async function entriesBelow(db: Db, boardId: string, period: string, points: number[]): Promise<number[]> {
  const ranges = points.flatMap((point, i) =>
    betterRanges(point).map(
      ([level, from, to]) =>
        sql`select ${i} as i, n from ${table(db, 'leaderboard_counts')} where board_id = ${boardId} and period = ${period} and level = ${level} and prefix >= ${from} and prefix <= ${to}`,
    ),
  )
  const below = new Array<number>(points.length).fill(0)
  for (let start = 0; start < ranges.length; start += RANGES_PER_STATEMENT) {
    const chunk = ranges.slice(start, start + RANGES_PER_STATEMENT)
    const { rows } = await sql<{
      i: number | string
      n: number | string | null
    }>`select i, sum(n) as n from (${sql.join(chunk, sql` union all `)}) as below group by i`.execute(db)
    for (const row of rows) below[Number(row.i)]! += Number(row.n ?? 0)
  }
  return below
}

/**
 * The rank scores of the visible entries at these 0-based positions in rank order (each below the
 * period's total): a walk down the count tree, all positions at once, one statement per level.
 */
async function rankScoresAt(db: Db, boardId: string, period: string, positions: number[]): Promise<number[]> {
  const walks = positions.map((rest) => ({ parent: 0n, rest }))
  for (let level = 1; level <= LEVELS; level++) {
    const parents = [...new Set(walks.map((w) => w.parent))]
    const ranges = parents.map((parent, i) => {
      const [from, to] = childRange(level, parent)
      return sql`select ${i} as i, prefix, n from ${table(db, 'leaderboard_counts')} where board_id = ${boardId} and period = ${period} and level = ${level} and prefix >= ${from} and prefix <= ${to}`
    })
    const { rows } = await sql<{
      i: number | string
      prefix: number | string
      n: number | string
    }>`${sql.join(ranges, sql` union all `)}`.execute(db)
    // A prefix has a row per slot (ranking.ts): its count is their sum.
    const merged = parents.map(() => new Map<number, number>())
    for (const row of rows) {
      const slots = merged[Number(row.i)]!
      slots.set(Number(row.prefix), (slots.get(Number(row.prefix)) ?? 0) + Number(row.n))
    }
    const children = merged.map((slots) =>
      [...slots].map(([prefix, n]) => ({ prefix, n })).sort((a, b) => a.prefix - b.prefix),
    )
    for (const walk of walks) {
      const list = children[parents.indexOf(walk.parent)]!.filter((c) => c.n > 0)
      // An entry written between two levels' statements may shift a count: the walk stays in the tree.
      let child = list[list.length - 1]
      for (const c of list) {
        if (walk.rest < c.n) {
          child = c
          break
        }
        walk.rest -= c.n
      }
      if (!child) return positions.map(() => 0)
      walk.parent = BigInt(child.prefix)
    }
  }
  return walks.map((w) => Number(w.parent))
}

/** A board's score distribution, for the admin histogram. */
export interface Histogram {
  boardKey: string
  period: string
  min: number | null
  max: number | null
  buckets: Array<{ from: number; to: number; count: number }>
}

/**
 * The lowest and the highest rank scores of the visible entries in [low, high], or null when there is
 * none: two seeks on the rank index. (One SELECT of both MIN and MAX makes SQLite scan the period's
 * entries: 0.56 s on a board of 1,000,000.)
 */
async function ends(db: Db, boardId: string, period: string, low: number, high: number) {
  const seek = (fn: 'min' | 'max') =>
    sql`(select ${sql.raw(fn)}(rank_score) from ${table(db, 'leaderboard_entries')} where board_id = ${boardId} and period = ${period} and hidden = 0 and rank_score >= ${low} and rank_score <= ${high})`
  const { rows } = await sql<{
    lo: number | string | null
    hi: number | string | null
  }>`select ${seek('min')} as lo, ${seek('max')} as hi`.execute(db)
  const { lo, hi } = rows[0]!
  return lo === null || hi === null ? null : ([Number(lo), Number(hi)] as const)
}

/**
 * The scores the equal-width buckets span, in rank scores: the whole period [lo, hi], or without the
 * outliers, the entries beyond Tukey's fences (1.5 interquartile ranges below the first quartile or
 * above the third), which then get an end bucket of their own.
 */
async function core(db: Db, boardId: string, period: string, lo: number, hi: number) {
  const total = await totalEntries(db, boardId, period)
  if (total < 4) return [lo, hi] as const
  const [q1, q3] = await rankScoresAt(db, boardId, period, [
    Math.floor((total - 1) / 4),
    Math.floor((3 * (total - 1)) / 4),
  ])
  const spread = 1.5 * (q3! - q1!)
  const [low, high] = [Math.max(lo, Math.ceil(q1! - spread)), Math.min(hi, Math.floor(q3! + spread))]
  if (low === lo && high === hi) return [lo, hi] as const
  // Never null: the quartiles themselves lie inside the fences.
  return (await ends(db, boardId, period, low, high)) ?? ([lo, hi] as const)
}

/**
 * The current period's visible scores in at most `buckets` buckets (`from` and `to` inclusive, each
 * starting one above the last one's end). The outliers — scores beyond Tukey's fences: more than 1.5
 * interquartile ranges below the first quartile or above the third — get an end bucket of their own
 * on each side that has any (the high side first when there is room for one only; none with a single
 * bucket); the buckets between share the rest in equal integer widths, fewer when those scores span
 * fewer values. So two scores of 1,000,000 among hundreds from 0 to 1,000 make one last bucket, not 19
 * empty ones. An empty period has no buckets. 404 LEADERBOARD_NOT_FOUND for an unknown board.
 */
export async function scoreHistogram(db: Db, boardKey: string, buckets: number, now: number): Promise<Histogram> {
  const board = await findBoard(db, boardKey)
  if (!board) throw boardNotFound(boardKey)
  const period = periodKey(board.reset_schedule, now)
  const all = await ends(db, board.id, period, -Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)
  if (all === null) return { boardKey, period, min: null, max: null, buckets: [] }
  // rank_score is −score on boards where higher is better: turn rank scores back into scores.
  const desc = board.sort_order === 'desc'
  const toScore = (rank: number) => (desc ? -Number(rank) : Number(rank))
  const scores = (a: number, b: number) => [toScore(a), toScore(b)].sort((x, y) => x - y) as [number, number]
  const [min, max] = scores(...all)
  const [coreLow, coreHigh] = scores(...(await core(db, board.id, period, ...all)))
  let middle = buckets
  const high = coreHigh < max && middle > 1
  if (high) middle--
  const low = coreLow > min && middle > 1
  if (low) middle--
  const [first, last] = [low ? coreLow : min, high ? coreHigh : max]
  const width = Math.max(1, Math.ceil((last - first + 1) / middle))
  const edges: Array<{ from: number; to: number }> = []
  if (low) edges.push({ from: min, to: coreLow - 1 })
  for (let from = first; from <= last; from += width) edges.push({ from, to: Math.min(last, from + width - 1) })
  if (high) edges.push({ from: coreHigh + 1, to: max })
  // Entries with a score in [from, to] are those with a rank score in [lo, hi]: below(hi + 1) − below(lo).
  const rankBounds = edges.map((e) => (desc ? [-e.to, -e.from] : [e.from, e.to]) as [number, number])
  // Neighbouring buckets share a bound: each distinct bound is summed once.
  const points = [...new Set(rankBounds.flatMap(([lo, hi]) => [lo, hi + 1]))]
  const sums = await entriesBelow(db, board.id, period, points)
  const below = new Map(points.map((point, i) => [point, sums[i]!]))
  const counts = rankBounds.map(([lo, hi]) => below.get(hi + 1)! - below.get(lo)!)
  return { boardKey, period, min, max, buckets: edges.map((e, i) => ({ ...e, count: counts[i]! })) }
}
