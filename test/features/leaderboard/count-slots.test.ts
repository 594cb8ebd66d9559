// The count tree's rows in several slots (ranking.ts, migration 0161), as a Galera cluster's nodes
// write them: every read sums a count's slots, so a board whose counts are spread over slots, one of
// them below zero, answers as it did with one row per count (also after the migration is undone and
// done again over those rows), and submits and a deletion after keep it exact.
import t from 'tap'
import { sql } from 'kysely'
import { buildTestApp, eachDialect, type TestApp } from '../../helpers/app.js'
import { createUser } from '../../fixtures/users.js'
import { board, createBoard, submit } from '../../fixtures/leaderboard.js'
import { seededRandom } from '../../helpers/random.js'
import * as m0161 from '../../../features/leaderboard/migrations/0161_leaderboard_count_slots.js'

const KEY = 'slotted'

/** Every answer that reads the count tree: ranks (with the total), pages around, the board list, the histogram. */
async function answers(ctx: TestApp, users: string[]) {
  const read = async (url: string, admin = false) => {
    const res = await (admin ? ctx.admin : ctx.call)({ method: 'GET', url })
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`)
    return res.json()
  }
  const ranks = []
  for (const userId of users) ranks.push(await read(`${board(KEY)}/rank?userId=${userId}`))
  const around = await read(`${board(KEY)}/around?userId=${users[3]}&range=3`)
  const boards = (await read('/leaderboards')).boards.find((b: { key: string }) => b.key === KEY)
  const histogram = await read(`${board(KEY)}/histogram?buckets=7`, true)
  return { ranks, around, boards, histogram }
}

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  const db = ctx.app.db
  const random = seededRandom(52)
  await createBoard(ctx, KEY)
  const users: string[] = []
  const best = new Map<string, number>()
  for (let i = 0; i < 40; i++) {
    const { userId } = await createUser(ctx)
    users.push(userId)
    // Distinct scores, some far apart (other rows near the root), most close together.
    const score = i * 1000 + Math.floor(random() * 900) + (i % 7 === 0 ? 5_000_000_000 * i : 0)
    best.set(userId, score)
    t.equal((await submit(ctx, KEY, userId, score)).statusCode, 200)
  }
  const before = await answers(ctx, users)

  const { id } = await db.selectFrom('leaderboards').select('id').where('board_key', '=', KEY).executeTakeFirstOrThrow()
  // As two nodes would leave them: each count as slot 5's n + 1 and slot 0's −1.
  await sql`insert into leaderboard_counts (board_id, period, level, prefix, slot, n)
    select board_id, period, level, prefix, 5, n + 1 from leaderboard_counts where board_id = ${id}`.execute(db)
  await sql`update leaderboard_counts set n = -1 where board_id = ${id} and slot = 0`.execute(db)
  const slots = await sql<{ n: number | string }>`select count(distinct slot) as n from leaderboard_counts
    where board_id = ${id}`.execute(db)
  t.equal(Number(slots.rows[0]!.n), 2, 'the counts are in two slots')
  t.same(await answers(ctx, users), before, 'every read answers as with one row per count')

  // The migration undone sums the slots into one row per count; done again, the rows keep their counts.
  await m0161.down(db)
  t.same(await answers(ctx, users), before, 'migration 0161 undone over slotted counts: the same answers')
  await m0161.up(db)
  t.same(await answers(ctx, users), before, 'and done again over existing rows: the same answers')

  // Writes after: improvements, a new player, a deletion; positions against the scores sorted.
  for (const userId of users.slice(0, 10)) {
    const score = best.get(userId)! + 20_000 + Math.floor(random() * 900)
    best.set(userId, score)
    t.equal((await submit(ctx, KEY, userId, score)).statusCode, 200)
  }
  const late = (await createUser(ctx)).userId
  users.push(late)
  best.set(late, 123_456)
  t.equal((await submit(ctx, KEY, late, 123_456)).statusCode, 200)
  const gone = users.splice(5, 1)[0]!
  best.delete(gone)
  const deleted = await ctx.admin({ method: 'DELETE', url: `${board(KEY)}/entries/${gone}` })
  t.ok(deleted.statusCode < 300, `the entry deleted (${deleted.statusCode})`)
  const after = await answers(ctx, users)
  const wrong = users.filter((userId, i) => {
    const better = [...best.values()].filter((s) => s > best.get(userId)!).length
    return after.ranks[i].position !== better + 1 || after.ranks[i].total !== best.size
  })
  t.same(wrong, [], `${dialect}: every position and total exact after writes over slotted counts`)
})
