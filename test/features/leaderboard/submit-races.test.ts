// Concurrent submits from many players at once, through the one-round-trip routine on the database
// servers (and the statements of submit.ts on SQLite): no best score lost, rank, top and around
// agreeing with the brute-force order, the count tree equal to one rebuilt from the entries, and
// `leaderboard.new_leader` raised once per change of hands, never for a leader who only improved.
import t from 'tap'
import { buildTestApp, eachDialect } from '../../helpers/app.js'
import { createUser } from '../../fixtures/users.js'
import { board, createBoard, submit } from '../../fixtures/leaderboard.js'
import { rebuildCounts } from '../../../features/leaderboard/ranking.js'
import { seededRandom } from '../../helpers/random.js'
import type { Db } from '../../../db/types.js'

const PLAYERS = 24
const ROUNDS = 6

/** The board's count rows that count something, as `level:prefix=n`, sorted. */
async function tree(db: Db, boardId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('leaderboard_counts')
    .select(['level', 'prefix', 'n'])
    .where('board_id', '=', boardId)
    .execute()
  return rows
    .filter((r) => Number(r.n) !== 0)
    .map((r) => `${r.level}:${r.prefix}=${r.n}`)
    .sort()
}

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } })
  await ctx.app.ready()
  // Deliveries stay in their table, where the test counts them.
  await ctx.app.webhookWorker.stop()
  const { call, admin, app } = ctx
  const hook = await admin({
    method: 'POST',
    url: '/webhooks',
    payload: { url: 'http://127.0.0.1:9/leaders', events: ['leaderboard.new_leader'] },
  })
  t.equal(hook.statusCode, 201, hook.body)
  await createBoard(ctx, 'storm')
  const boardId = (
    await app.db.selectFrom('leaderboards').select('id').where('board_key', '=', 'storm').executeTakeFirstOrThrow()
  ).id
  const players = await Promise.all(Array.from({ length: PLAYERS }, () => createUser(ctx)))

  // Distinct scores (no ties to order), dealt at random: every round each player sends two at once.
  const random = seededRandom(4242)
  const deck = Array.from({ length: PLAYERS * ROUNDS * 2 }, (_, i) => 1000 + i * 7)
  for (let i = deck.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[deck[i], deck[j]] = [deck[j]!, deck[i]!]
  }
  const best = new Map<string, number>()
  const tookFirst: Array<{ userId: string; score: number }> = []
  for (let round = 0; round < ROUNDS; round++) {
    ctx.clock.advance(1000)
    const sends = players.flatMap((p, i) =>
      [0, 1].map((k) => ({ userId: p.userId, score: deck[(round * PLAYERS + i) * 2 + k]! })),
    )
    const answers = await Promise.all(sends.map((s) => submit(ctx, 'storm', s.userId, s.score)))
    const failed = answers.filter((a) => a.statusCode !== 200)
    t.same(
      failed.map((a) => a.body),
      [],
      `round ${round}: every submit answered 200`,
    )
    answers.forEach((answer, i) => {
      const sent = sends[i]!
      const body = answer.json()
      best.set(sent.userId, Math.max(best.get(sent.userId) ?? 0, sent.score))
      if (body.improved && body.position === 1) tookFirst.push({ userId: sent.userId, score: body.score })
    })
  }

  t.test('no best score lost; rank, top and around agree with the brute-force order', async (t) => {
    const truth = [...best.entries()].sort((a, b) => b[1] - a[1])
    const top = (await call({ method: 'GET', url: `${board('storm')}/top?limit=100` })).json()
    t.same(
      top.entries.map((e: { userId: string; score: number }) => [e.userId, e.score]),
      truth,
      'top lists every best score in order',
    )
    let wrong = 0
    for (const [i, [userId, score]] of truth.entries()) {
      const rank = (await call({ method: 'GET', url: `${board('storm')}/rank?userId=${userId}` })).json()
      if (rank.position !== i + 1 || rank.score !== score) wrong++
    }
    t.equal(wrong, 0, 'every rank is the brute-force position')
    const middle = Math.floor(truth.length / 2)
    const around = (
      await call({ method: 'GET', url: `${board('storm')}/around?userId=${truth[middle]![0]}&range=3` })
    ).json()
    t.same(
      around.entries.map((e: { userId: string; position: number }) => [e.userId, e.position]),
      truth.slice(middle - 3, middle + 4).map(([userId], i) => [userId, middle - 3 + i + 1]),
      'around the middle',
    )
  })

  t.test('the count tree equals one rebuilt from the entries', async (t) => {
    const kept = await tree(app.db, boardId)
    await rebuildCounts(app.db, boardId)
    t.same(kept, await tree(app.db, boardId))
    t.ok(kept.includes(`0:0=${PLAYERS}`), 'the total counts every player once')
  })

  t.test('new_leader raised once per change of hands', async (t) => {
    const raised = await app.db
      .selectFrom('webhook_deliveries')
      .select('payload')
      .where('event_type', '=', 'leaderboard.new_leader')
      .execute()
    const events = raised.map((r) => JSON.parse(r.payload).data as { userId: string; score: number })
    const keys = events.map((e) => `${e.userId}:${e.score}`)
    t.equal(new Set(keys).size, keys.length, 'no event twice')
    const firsts = new Set(tookFirst.map((e) => `${e.userId}:${e.score}`))
    t.ok(
      keys.every((k) => firsts.has(k)),
      'each event is a submit that answered first place',
    )
    // Scores only go up on a best board: each new leader beat every earlier one.
    const scores = events.map((e) => e.score).sort((a, b) => a - b)
    t.same(scores, [...new Set(scores)], 'distinct scores')
    // Each event is a player taking first place from another: in score order, no player twice in a row
    // (a leader who only improves raises nothing).
    const inOrder = events.slice().sort((a, b) => a.score - b.score)
    t.ok(
      inOrder.every((e, i) => i === 0 || inOrder[i - 1]!.userId !== e.userId),
      `${events.length} events, each a change of hands`,
    )
    t.ok(events.length >= 1, 'the first entry took first place')
  })
})
