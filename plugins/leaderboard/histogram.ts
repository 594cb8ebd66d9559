// Board totals and the score distribution of a board's current period, for analytics. The distribution
// reads the count tree (ranking.ts): the entries below a score are a sum over at most 6 ranges of count
// rows, so a histogram of B buckets costs one statement of B + 1 such sums and two index seeks, whatever the
// board's size.
import { sql } from 'kysely'
import type { Db } from '../../db/types.js'
import { betterRanges, periodKey } from './ranking.js'
import { boardNotFound, findBoard, scoreCounts } from './boards.js'

/** Boards, and the visible entries of every board's current period. */
export async function boardTotals(db: Db, now: number) {
  const boards = await db.selectFrom('leaderboards').selectAll().execute()
  const counts = await scoreCounts(db, boards, now)
  return { boards: boards.length, entries: [...counts.values()].reduce((a, b) => a + b, 0) }
}

/**
 * For each rank score of `points`, the visible entries of the period strictly below it, in one
 * statement: the count-row ranges of every point, tagged with the point's index, summed per index.
 */
async function entriesBelow(db: Db, boardId: string, period: string, points: number[]): Promise<number[]> {
  const ranges = points.flatMap((point, i) =>
    betterRanges(point).map(
      ([level, from, to]) =>
        sql`select ${i} as i, n from leaderboard_counts where board_id = ${boardId} and period = ${period} and level = ${level} and prefix >= ${from} and prefix <= ${to}`,
    ),
  )
  const below = new Array<number>(points.length).fill(0)
  if (ranges.length === 0) return below
  const { rows } = await sql<{
    i: number | string
    n: number | string | null
  }>`select i, sum(n) as n from (${sql.join(ranges, sql` union all `)}) as below group by i`.execute(db)
  for (const row of rows) below[Number(row.i)] = Number(row.n ?? 0)
  return below
}

export interface Histogram {
  boardKey: string
  period: string
  min: number | null
  max: number | null
  buckets: Array<{ from: number; to: number; count: number }>
}

/**
 * The current period's visible scores in at most `buckets` buckets of equal integer width, from the
 * lowest score to the highest (`from` and `to` inclusive); fewer buckets when the scores span fewer
 * values than that. An empty period has no buckets. 404 LEADERBOARD_NOT_FOUND for an unknown board.
 */
export async function scoreHistogram(db: Db, boardKey: string, buckets: number, now: number): Promise<Histogram> {
  const board = await findBoard(db, boardKey)
  if (!board) throw boardNotFound(boardKey)
  const period = periodKey(board.reset_schedule, now)
  const ends = await db
    .selectFrom('leaderboard_entries')
    .select((eb) => [eb.fn.min<number>('rank_score').as('lo'), eb.fn.max<number>('rank_score').as('hi')])
    .where('board_id', '=', board.id)
    .where('period', '=', period)
    .where('hidden', '=', 0)
    .executeTakeFirst()
  if (ends?.lo === null || ends?.lo === undefined || ends.hi === null) {
    return { boardKey, period, min: null, max: null, buckets: [] }
  }
  // rank_score is −score on boards where higher is better: turn the ends back into scores.
  const desc = board.sort_order === 'desc'
  const toScore = (rank: number) => (desc ? -Number(rank) : Number(rank))
  const [min, max] = [toScore(ends.lo), toScore(ends.hi)].sort((a, b) => a - b) as [number, number]
  const width = Math.max(1, Math.ceil((max - min + 1) / buckets))
  const edges: Array<{ from: number; to: number }> = []
  for (let from = min; from <= max; from += width) edges.push({ from, to: Math.min(max, from + width - 1) })
  // Entries with a score in [from, to] are those with a rank score in [lo, hi]: below(hi + 1) − below(lo).
  const rankBounds = edges.map((e) => (desc ? [-e.to, -e.from] : [e.from, e.to]) as [number, number])
  // Neighbouring buckets share a bound: each distinct bound is summed once.
  const points = [...new Set(rankBounds.flatMap(([lo, hi]) => [lo, hi + 1]))]
  const sums = await entriesBelow(db, board.id, period, points)
  const below = new Map(points.map((point, i) => [point, sums[i]!]))
  const counts = rankBounds.map(([lo, hi]) => below.get(hi + 1)! - below.get(lo)!)
  return { boardKey, period, min, max, buckets: edges.map((e, i) => ({ ...e, count: counts[i]! })) }
}
