// The ranking rule (score in board order, then the earlier time, then userId) checked against a
// brute-force sort: 30 players with ties, then a board of a few thousand random scores through top,
// rank and around, after deletions and after the sort order is flipped.
import { randomUUID } from 'node:crypto'
import t from 'tap'
import { seededRandom } from '../../helpers/random.js'
import { buildTestApp, eachDialect, type TestApp } from '../../helpers/app.js'
import { createUser } from '../../fixtures/users.js'
import { board, createBoard, submit } from '../../fixtures/leaderboard.js'
import { submitScore } from '../../../features/leaderboard/service.js'
import { rebuildCounts } from '../../../features/leaderboard/ranking.js'

interface Expected {
  userId: string
  score: number
  reachedAt: number
}

/** The ranking rule (score in board order, then the earlier time, then userId), by brute force. */
function sorted(entries: Expected[], order: 'asc' | 'desc') {
  return [...entries].sort(
    (a, b) =>
      (order === 'desc' ? b.score - a.score : a.score - b.score) ||
      a.reachedAt - b.reachedAt ||
      (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0),
  )
}

async function topAll(ctx: TestApp, key: string, query = '') {
  const all: any[] = []
  for (let offset = 0; offset < 100_000; offset += 100) {
    const page = (await ctx.call({ method: 'GET', url: `${board(key)}/top?limit=100&offset=${offset}${query}` })).json()
    all.push(...page.entries)
    if (page.entries.length < 100) break
  }
  return all
}

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  const { call, admin, clock } = ctx

  t.test('30 players with ties: top, rank and around agree and follow the ranking rule', async (t) => {
    await createBoard(ctx, 'Ties Board')
    const expected: Expected[] = []
    for (let i = 0; i < 30; i++) {
      const user = await createUser(ctx)
      if (i % 4 === 0) clock.advance(1)
      const score = (i % 6) * 100
      const res = await submit(ctx, 'Ties Board', user.userId, score)
      t.equal(res.statusCode, 200)
      expected.push({ userId: user.userId, score, reachedAt: clock.now() })
    }
    const order = sorted(expected, 'desc')
    const top = (await call({ method: 'GET', url: `${board('Ties Board')}/top?limit=100` })).json()
    t.equal(top.total, 30)
    t.equal(top.leaderboardKey, 'Ties Board')
    t.same(
      top.entries.map((e: any) => e.userId),
      order.map((e) => e.userId),
      'top follows score, time, userId',
    )
    t.same(
      top.entries.map((e: any) => e.position),
      order.map((_, i) => i + 1),
    )
    t.same(Object.keys(top.entries[0]).sort(), ['position', 'profile', 'score', 'updatedAt', 'userId', 'username'])
    const paged = (await call({ method: 'GET', url: `${board('Ties Board')}/top?limit=5&offset=10` })).json()
    t.same(
      paged.entries.map((e: any) => e.position),
      [11, 12, 13, 14, 15],
    )
    for (const [i, e] of order.entries()) {
      const rank = (await call({ method: 'GET', url: `${board('Ties Board')}/rank?userId=${e.userId}` })).json()
      t.equal(rank.position, i + 1, `rank of #${i + 1}`)
      t.equal(rank.ranked, true)
      t.equal(rank.score, e.score)
      t.equal(rank.total, 30)
    }
    for (const i of [0, 1, 14, 28, 29]) {
      const around = (
        await call({ method: 'GET', url: `${board('Ties Board')}/around?userId=${order[i].userId}&range=3` })
      ).json()
      const from = Math.max(0, i - 3)
      t.same(
        around.entries.map((e: any) => e.userId),
        order.slice(from, i + 4).map((e) => e.userId),
        `around #${i + 1}`,
      )
      t.same(
        around.entries.map((e: any) => e.position),
        order.slice(from, i + 4).map((_, j) => from + j + 1),
      )
    }
  })

  t.test('a board of a few thousand random scores with ties ranks exactly like a brute-force sort', async (t) => {
    const db = ctx.app.db
    const n = 3000
    const bulk = 2800
    const key = 'bulk'
    const { id: boardId } = await createBoard(ctx, key, { minScore: -(2 ** 53) + 1 })
    const now = clock.now()
    const users = Array.from({ length: n }, () => randomUUID())
    for (let i = 0; i < n; i += 500) {
      await db
        .insertInto('users')
        .values(
          users.slice(i, i + 500).map((id, j) => ({
            id,
            username: `bulk-${i + j}`,
            email: null,
            is_anonymous: 1,
            is_verified: 0,
            anonymous_token_hash: null,
            banned_at: null,
            ban_reason: null,
            created_at: now,
            updated_at: now,
          })),
        )
        .execute()
    }
    // Scores clustered (many ties), spread wide (deep and shallow levels of the tree), and negative.
    const random = seededRandom(12345)
    const pick = (): number => {
      const r = random()
      if (r < 0.5) return Math.floor(random() * 40)
      if (r < 0.8) return Math.floor(random() * 1_000_000) - 500_000
      return Math.floor((random() - 0.5) * 2 * Number.MAX_SAFE_INTEGER)
    }
    // Most entries go in by bulk insert and a rebuild of the count tree (fast on both databases)...
    const expected = new Map<string, Expected>()
    const rows = users.slice(0, bulk).map((userId, i) => {
      const e = { userId, score: pick(), reachedAt: now - 1000 + (i % 13) }
      expected.set(userId, e)
      return {
        board_id: boardId,
        period: 'all',
        user_id: userId,
        score: e.score,
        rank_score: -e.score,
        reached_at: e.reachedAt,
        hidden: 0 as const,
        metadata: null,
        created_at: now,
      }
    })
    for (let i = 0; i < rows.length; i += 500)
      await db
        .insertInto('leaderboard_entries')
        .values(rows.slice(i, i + 500))
        .execute()
    await rebuildCounts(db, boardId)
    // ...and then the score write keeps the tree up to date: new entries, better and worse scores.
    const started = Date.now()
    for (const [i, userId] of [...users.slice(bulk), ...users.slice(0, 150)].entries()) {
      if (i % 9 === 0) clock.advance(1)
      const score = pick()
      const result = await submitScore(db, ctx.app.events, {
        boardKey: key,
        userId,
        score,
        validated: false,
        now: clock.now(),
      })
      const old = expected.get(userId)
      if (!old || score > old.score) expected.set(userId, { userId, score, reachedAt: clock.now() })
      if (result.score !== expected.get(userId)!.score) t.fail(`stored score of submit ${i}`)
    }
    t.comment(`${n - bulk + 150} submits in ${Date.now() - started} ms`)
    const entries = [...expected.values()]
    const check = async (label: string, order: 'asc' | 'desc') => {
      const checkStarted = Date.now()
      const truth = sorted(entries, order)
      const top = await topAll(ctx, key)
      t.equal(top.length, truth.length, `${label}: every entry listed`)
      t.ok(
        top.every((e, i) => e.userId === truth[i].userId && e.position === i + 1),
        `${label}: top equals the brute-force order`,
      )
      let wrong = 0
      for (let i = 0; i < truth.length; i += Math.floor(truth.length / 60)) {
        const rank = (await call({ method: 'GET', url: `${board(key)}/rank?userId=${truth[i].userId}` })).json()
        if (rank.position !== i + 1) wrong++
      }
      for (const i of [0, truth.length - 1]) {
        const rank = (await call({ method: 'GET', url: `${board(key)}/rank?userId=${truth[i].userId}` })).json()
        if (rank.position !== i + 1) wrong++
      }
      t.equal(wrong, 0, `${label}: rank equals the brute-force position`)
      let aroundWrong = 0
      for (const i of [0, 1, 17, Math.floor(truth.length / 2), truth.length - 2, truth.length - 1]) {
        const around = (
          await call({ method: 'GET', url: `${board(key)}/around?userId=${truth[i].userId}&range=5` })
        ).json()
        const from = Math.max(0, i - 5)
        const want = truth.slice(from, i + 6)
        if (
          around.entries.length !== want.length ||
          around.entries.some((e: any, j: number) => e.userId !== want[j].userId || e.position !== from + j + 1)
        )
          aroundWrong++
      }
      t.equal(aroundWrong, 0, `${label}: around equals the brute-force neighbours`)
      t.comment(`${label}: checked in ${Date.now() - checkStarted} ms`)
    }
    await check('desc', 'desc')

    // Contract §5.2: an integer limit or range out of range is clamped as the PHP server does.
    const truth = sorted(entries, 'desc')
    const ids = (res: { json(): { entries: Array<{ userId: string }> } }) => res.json().entries.map((e) => e.userId)
    for (const [query, want] of [
      ['limit=500', 100],
      ['limit=101', 100],
      ['limit=0', 1],
      ['limit=-7', 1],
    ] as const) {
      const res = await call({ method: 'GET', url: `${board(key)}/top?${query}` })
      t.equal(res.statusCode, 200, `top ${query} is no 400`)
      t.same(
        ids(res),
        truth.slice(0, want).map((e) => e.userId),
        `top ${query} reads ${want}`,
      )
    }
    const middle = Math.floor(truth.length / 2)
    for (const [range, want] of [
      [500, 50],
      [51, 50],
      [0, 1],
      [-3, 1],
    ] as const) {
      const res = await call({
        method: 'GET',
        url: `${board(key)}/around?userId=${truth[middle]!.userId}&range=${range}`,
      })
      t.same(
        ids(res),
        truth.slice(middle - want, middle + want + 1).map((e) => e.userId),
        `around range=${range} reads ${want} either side`,
      )
    }

    // Deleting players takes them out of the counts too.
    for (const gone of [entries[0], entries[n - 1], entries[Math.floor(n / 3)]]) {
      t.equal((await admin({ method: 'DELETE', url: `/users/${gone.userId}` })).statusCode, 200)
      entries.splice(entries.indexOf(gone), 1)
    }
    t.equal((await call({ method: 'GET', url: `${board(key)}/top` })).json().total, n - 3)
    await check('after deletions', 'desc')

    // Flipping the sort order turns every rank score round and rebuilds the tree.
    t.equal((await admin({ method: 'PUT', url: board(key), payload: { sortOrder: 'asc' } })).json().sortOrder, 'asc')
    await check('flipped to asc', 'asc')
  })
})
