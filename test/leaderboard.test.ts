import { randomUUID } from 'node:crypto'
import t from 'tap'
import { seededRandom } from './helpers/random.js'
import { assertError, buildTestApp, eachDialect, type TestApp } from './helpers/app.js'
import { bearer, createUser } from './fixtures/users.js'
import { board, createBoard, submit } from './fixtures/leaderboard.js'
import { createCosmetic } from './fixtures/player-profile.js'
import { submitScore } from '../plugins/leaderboard/service.js'
import {
  betterRanges,
  countDeltas,
  periodKey,
  previousPeriodKey,
  rebuildCounts,
} from '../plugins/leaderboard/ranking.js'

const UNKNOWN_USER = '7d1e0f9a-3b2c-4d5e-8f60-718293a4b5c6'
const DAY = 24 * 3600 * 1000

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

t.test('period keys and the count tree ranges', async (t) => {
  const at = Date.parse('2026-11-22T10:00:00.000Z') // a Sunday
  t.equal(periodKey('none', at), 'all')
  t.equal(periodKey('daily', at), '2026-11-22')
  t.equal(periodKey('weekly', at), '2026-W47')
  t.equal(periodKey('weekly', at + DAY), '2026-W48', 'weeks start on Monday')
  t.equal(periodKey('monthly', at), '2026-11')
  t.equal(previousPeriodKey('daily', at), '2026-11-21')
  t.equal(previousPeriodKey('weekly', at), '2026-W46')
  t.equal(previousPeriodKey('monthly', Date.parse('2026-01-05T00:00:00Z')), '2025-12')
  t.equal(previousPeriodKey('none', at), null)
  t.equal(periodKey('weekly', Date.parse('2027-01-01T12:00:00Z')), '2026-W53', 'ISO week of the Thursday')
  t.same(countDeltas(5, 5), [], 'no move, no write')
  t.equal(countDeltas(null, 7).length, 7, 'an insert touches the 7 rows of its key')
  t.ok(countDeltas(5, 6).length <= 2, 'a small move touches only the deepest levels')
  t.same(betterRanges(-(2 ** 53) + 1), [], 'the best possible score has nothing above it')
})

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  const { call, admin, clock } = ctx

  t.test('the default board exists and the list answers the compat fields', async (t) => {
    const res = await call({ method: 'GET', url: '/leaderboards' })
    t.equal(res.statusCode, 200)
    const body = res.json()
    const def = body.boards.find((b: any) => b.key === 'default')
    t.match(def, {
      key: 'default',
      boardKey: 'default',
      sortOrder: 'desc',
      updateStrategy: 'best',
      resetSchedule: 'none',
      validatedOnly: false,
      isActive: true,
      scoreCount: 0,
    })
    t.type(def.id, 'string')
    t.equal(body.totalElements, body.boards.length)
    assertError(t, await admin({ method: 'DELETE', url: '/leaderboards/default' }), 409, 'CONFLICT')
  })

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

  t.test('submit answers the stored score, keeps the best, and both path families work', async (t) => {
    const user = await createUser(ctx)
    const first = await call({
      method: 'POST',
      url: '/leaderboard/submit',
      payload: { userId: user.userId, score: 50 },
    })
    t.equal(first.statusCode, 200)
    t.match(first.json(), {
      success: true,
      leaderboardKey: 'default',
      score: 50,
      submittedScore: 50,
      improved: true,
      position: 1,
    })
    const lower = (
      await call({ method: 'POST', url: '/leaderboards/default/submit', payload: { userId: user.userId, score: 10 } })
    ).json()
    t.match(lower, { score: 50, submittedScore: 10, improved: false })
    const higher = (
      await call({
        method: 'POST',
        url: '/leaderboards/default/submit',
        headers: bearer(user),
        payload: { userId: user.userId, score: 70, leaderboardKey: 'nope' },
      })
    ).json()
    t.match(higher, { leaderboardKey: 'default', score: 70, improved: true }, 'the path wins over leaderboardKey')
    await createBoard(ctx, 'side')
    const side = (
      await call({
        method: 'POST',
        url: '/leaderboard/submit',
        payload: { userId: user.userId, score: 3, leaderboardKey: 'side' },
      })
    ).json()
    t.equal(side.leaderboardKey, 'side', 'self-hosted path with leaderboardKey')
    const rank = (
      await call({ method: 'GET', url: `/leaderboard/rank?userId=${user.userId}&leaderboardKey=side` })
    ).json()
    t.match(rank, { leaderboardKey: 'side', position: 1, score: 3, ranked: true })
    const top = (await call({ method: 'GET', url: `/leaderboard/top?userId=${user.userId}&limit=1` })).json()
    t.equal(top.leaderboardKey, 'default')
    t.equal(top.entries.length, 1)
    const around = (await call({ method: 'GET', url: `/leaderboard/around?userId=${user.userId}` })).json()
    t.equal(around.entries.length, 1)
  })

  t.test('players without an entry, unknown users, unknown and inactive boards', async (t) => {
    const user = await createUser(ctx)
    const rank = await call({ method: 'GET', url: `/leaderboard/rank?userId=${user.userId}` })
    t.equal(rank.statusCode, 200)
    t.match(rank.json(), { position: 0, score: 0, ranked: false, userId: user.userId, username: user.username })
    t.same(rank.json().profile, { avatarId: null, frameId: null, badges: [] })
    t.same((await call({ method: 'GET', url: `/leaderboard/around?userId=${user.userId}` })).json(), {
      leaderboardKey: 'default',
      entries: [],
    })
    assertError(
      t,
      await call({ method: 'GET', url: `/leaderboard/rank?userId=${UNKNOWN_USER}` }),
      404,
      'USER_NOT_FOUND',
    )
    assertError(
      t,
      await call({ method: 'GET', url: `/leaderboard/around?userId=${UNKNOWN_USER}` }),
      404,
      'USER_NOT_FOUND',
    )
    assertError(t, await call({ method: 'GET', url: `/leaderboards/nope/top` }), 404, 'LEADERBOARD_NOT_FOUND')
    assertError(t, await submit(ctx, 'nope', user.userId, 1), 404, 'LEADERBOARD_NOT_FOUND')
    assertError(t, await submit(ctx, 'default', UNKNOWN_USER, 1), 404, 'USER_NOT_FOUND')
    await createBoard(ctx, 'Case', { isActive: false })
    assertError(t, await submit(ctx, 'Case', user.userId, 1), 404, 'LEADERBOARD_NOT_FOUND')
    assertError(
      t,
      await call({ method: 'GET', url: `${board('Case')}/rank?userId=${user.userId}` }),
      404,
      'LEADERBOARD_NOT_FOUND',
    )
    t.notOk(
      (await call({ method: 'GET', url: '/leaderboards' })).json().boards.some((b: any) => b.key === 'Case'),
      'inactive boards are not listed',
    )
    t.equal(
      (await admin({ method: 'GET', url: '/leaderboards?limit=100' })).json().items.find((b: any) => b.key === 'Case')
        .isActive,
      false,
      'the operator still sees it',
    )
    await createBoard(ctx, 'case')
    t.equal((await submit(ctx, 'case', user.userId, 1)).statusCode, 200, 'keys are case-sensitive')
    await createBoard(ctx, 'Case', { isActive: true })
    t.equal(
      (await call({ method: 'GET', url: `${board('Case')}/top` })).json().total,
      0,
      "'Case' and 'case' are two boards",
    )
  })

  t.test('bad inputs are 400 in the shared shape and store nothing', async (t) => {
    const user = await createUser(ctx)
    await createBoard(ctx, 'strict')
    const bad: unknown[] = [
      { userId: user.userId, score: '5' },
      { userId: user.userId, score: 1.5 },
      { userId: user.userId },
      { score: 5 },
      { userId: 'not-a-uuid', score: 5 },
      { userId: user.userId, score: 2 ** 60 },
      { userId: user.userId, score: 5, metadata: 'x'.repeat(3000) },
      { userId: user.userId, score: 5, metadata: { blob: 'y'.repeat(2100) } },
      { userId: user.userId, score: 5, metadata: 7 },
    ]
    for (const payload of bad)
      assertError(
        t,
        await call({ method: 'POST', url: `${board('strict')}/submit`, payload: payload as object }),
        400,
        'VALIDATION_ERROR',
      )
    assertError(
      t,
      await call({
        method: 'POST',
        url: `${board('strict')}/submit`,
        headers: { 'content-type': 'application/json' },
        payload: '{"userId":',
      }),
      400,
      'INVALID_JSON',
    )
    assertError(
      t,
      await call({
        method: 'POST',
        url: `/leaderboards/${'k'.repeat(65)}/submit`,
        payload: { userId: user.userId, score: 1 },
      }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(t, await call({ method: 'GET', url: `${board('strict')}/top?limit=ten` }), 400, 'VALIDATION_ERROR')
    assertError(t, await call({ method: 'GET', url: `${board('strict')}/top?limit=1.5` }), 400, 'VALIDATION_ERROR')
    assertError(t, await call({ method: 'GET', url: `${board('strict')}/top?offset=-1` }), 400, 'VALIDATION_ERROR')
    assertError(
      t,
      await call({ method: 'GET', url: `${board('strict')}/around?userId=${user.userId}&range=2.5` }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(t, await call({ method: 'GET', url: `${board('strict')}/rank?userId=nope` }), 400, 'VALIDATION_ERROR')
    assertError(
      t,
      await call({ method: 'GET', url: `${board('strict')}/rank?userId=${user.userId}&period=last` }),
      400,
      'VALIDATION_ERROR',
    )
    t.equal((await call({ method: 'GET', url: `${board('strict')}/top` })).json().total, 0, 'nothing stored')
  })

  t.test('asc boards, latest and increment strategies, score bounds', async (t) => {
    const [a, b] = [await createUser(ctx), await createUser(ctx)]
    await createBoard(ctx, 'speedrun', { sortOrder: 'asc', minScore: 1, maxScore: 100000 })
    await submit(ctx, 'speedrun', a.userId, 900)
    await submit(ctx, 'speedrun', b.userId, 1200)
    t.match(
      (await submit(ctx, 'speedrun', a.userId, 1000)).json(),
      { score: 900, improved: false },
      'asc keeps the lower',
    )
    t.match((await submit(ctx, 'speedrun', b.userId, 800)).json(), { score: 800, improved: true, position: 1 })
    const bounds = await submit(ctx, 'speedrun', a.userId, 0)
    assertError(t, bounds, 400, 'VALIDATION_ERROR')
    t.match(bounds.json().message, /1.*100000/, 'the message names the bounds')
    assertError(t, await submit(ctx, 'speedrun', a.userId, 100001), 400, 'VALIDATION_ERROR')
    t.same(
      (await call({ method: 'GET', url: `${board('speedrun')}/top` }))
        .json()
        .entries.map((e: any) => [e.userId, e.score]),
      [
        [b.userId, 800],
        [a.userId, 900],
      ],
      'nothing stored by refused submits',
    )

    await createBoard(ctx, 'latest', { updateStrategy: 'latest' })
    await submit(ctx, 'latest', a.userId, 500)
    await submit(ctx, 'latest', b.userId, 300)
    // The position is read before the count tree drops the old 500: it must not count it.
    t.match(
      (await submit(ctx, 'latest', a.userId, 20)).json(),
      { score: 20, improved: true, position: 2 },
      'a worse latest score ranks under the other player',
    )
    t.match((await submit(ctx, 'latest', a.userId, 20)).json(), { score: 20, improved: false, position: 2 })
    t.match((await submit(ctx, 'latest', a.userId, 400)).json(), { score: 400, improved: true, position: 1 })
    t.equal((await call({ method: 'GET', url: `${board('latest')}/rank?userId=${a.userId}` })).json().position, 1)

    await createBoard(ctx, 'coins', { updateStrategy: 'increment' })
    await submit(ctx, 'coins', a.userId, 5)
    t.match((await submit(ctx, 'coins', a.userId, 7)).json(), { score: 12, submittedScore: 7, improved: true })
    t.equal((await call({ method: 'GET', url: `${board('coins')}/rank?userId=${a.userId}` })).json().score, 12)

    await createBoard(ctx, 'negative', { minScore: -1000, maxScore: 1000, sortOrder: 'desc' })
    await submit(ctx, 'negative', a.userId, -5)
    await submit(ctx, 'negative', b.userId, -500)
    t.same(
      (await call({ method: 'GET', url: `${board('negative')}/top` })).json().entries.map((e: any) => e.score),
      [-5, -500],
    )
  })

  t.test('a daily board resets at 00:00 UTC and keeps the previous period', async (t) => {
    const [a, b] = [await createUser(ctx), await createUser(ctx)]
    await createBoard(ctx, 'daily', { resetSchedule: 'daily' })
    await submit(ctx, 'daily', a.userId, 10)
    await submit(ctx, 'daily', b.userId, 20)
    const until = Math.ceil((clock.now() + 1) / DAY) * DAY
    clock.advance(until - clock.now() - 1)
    t.equal(
      (await call({ method: 'GET', url: `${board('daily')}/top` })).json().total,
      2,
      'still the same day at 23:59:59.999',
    )
    clock.advance(1)
    t.same(
      (await call({ method: 'GET', url: `${board('daily')}/top` })).json(),
      { leaderboardKey: 'daily', entries: [], total: 0 },
      'a new day starts empty',
    )
    t.match((await call({ method: 'GET', url: `${board('daily')}/rank?userId=${a.userId}` })).json(), {
      position: 0,
      ranked: false,
    })
    const previous = (await call({ method: 'GET', url: `${board('daily')}/top?period=previous` })).json()
    t.same(
      previous.entries.map((e: any) => e.score),
      [20, 10],
    )
    t.match((await call({ method: 'GET', url: `${board('daily')}/rank?userId=${a.userId}&period=previous` })).json(), {
      position: 2,
      score: 10,
      ranked: true,
    })
    t.equal(
      (await call({ method: 'GET', url: `${board('daily')}/around?userId=${a.userId}&period=previous` })).json().entries
        .length,
      2,
    )
    t.match(
      (await submit(ctx, 'daily', a.userId, 1)).json(),
      { score: 1, improved: true, position: 1 },
      'the new period starts from nothing',
    )
    t.equal(
      (await call({ method: 'GET', url: '/leaderboards' })).json().boards.find((x: any) => x.key === 'daily')
        .scoreCount,
      1,
    )
    t.same(
      (await call({ method: 'GET', url: `/leaderboard/top?period=previous` })).json().entries,
      [],
      'a board that never resets has no previous period',
    )
  })

  t.test('50 concurrent submits for one user: best keeps the maximum, increment the sum', async (t) => {
    const user = await createUser(ctx)
    await createBoard(ctx, 'race-best')
    await createBoard(ctx, 'race-inc', { updateStrategy: 'increment' })
    const scores = Array.from({ length: 50 }, (_, i) => ((i * 37) % 50) + 1)
    const best = await Promise.all(scores.map((s) => submit(ctx, 'race-best', user.userId, s)))
    t.ok(
      best.every((r) => r.statusCode === 200),
      'every submit answered 200',
    )
    t.equal((await call({ method: 'GET', url: `${board('race-best')}/rank?userId=${user.userId}` })).json().score, 50)
    const inc = await Promise.all(scores.map((s) => submit(ctx, 'race-inc', user.userId, s)))
    t.ok(
      inc.every((r) => r.statusCode === 200),
      'every increment answered 200',
    )
    const total = scores.reduce((a, b) => a + b, 0)
    const rank = (await call({ method: 'GET', url: `${board('race-inc')}/rank?userId=${user.userId}` })).json()
    t.equal(rank.score, total)
    t.equal(rank.total, 1, 'one entry, counted once')
  })

  t.test('50 concurrent submits over an existing entry: no increment lost, best kept, counted once', async (t) => {
    // The entry exists, so each submit first tries a compare-and-set over what it read without locks;
    // the ones that lose it go the locking way.
    const user = await createUser(ctx)
    await createBoard(ctx, 'cas-best')
    await createBoard(ctx, 'cas-inc', { updateStrategy: 'increment' })
    t.equal((await submit(ctx, 'cas-best', user.userId, 1)).statusCode, 200)
    t.equal((await submit(ctx, 'cas-inc', user.userId, 1)).statusCode, 200)
    const scores = Array.from({ length: 50 }, (_, i) => ((i * 37) % 50) + 2)
    const answers = await Promise.all(
      scores.flatMap((s) => [submit(ctx, 'cas-best', user.userId, s), submit(ctx, 'cas-inc', user.userId, s)]),
    )
    t.ok(
      answers.every((r) => r.statusCode === 200),
      'every submit answered 200',
    )
    const best = (await call({ method: 'GET', url: `${board('cas-best')}/rank?userId=${user.userId}` })).json()
    t.equal(best.score, 51)
    t.equal(best.total, 1)
    const inc = (await call({ method: 'GET', url: `${board('cas-inc')}/rank?userId=${user.userId}` })).json()
    t.equal(inc.score, 1 + scores.reduce((a, b) => a + b, 0))
    t.equal(inc.total, 1, 'one entry, counted once')
  })

  t.test("a submit's standing comes first: unknown player 404, banned player 403, before the board", async (t) => {
    const user = await createUser(ctx)
    const unknown = '00000000-0000-4000-8000-000000000000'
    assertError(t, await submit(ctx, 'no-such-board', unknown, 5), 404, 'USER_NOT_FOUND')
    assertError(t, await submit(ctx, 'no-such-board', user.userId, 5), 404, 'LEADERBOARD_NOT_FOUND')
    t.equal((await admin({ method: 'POST', url: `/users/${user.userId}/ban`, payload: {} })).statusCode, 200)
    assertError(t, await submit(ctx, 'no-such-board', user.userId, 5), 403, 'USER_BANNED')
  })

  t.test('validatedOnly boards and board bans', async (t) => {
    const [user, other] = [await createUser(ctx), await createUser(ctx)]
    await createBoard(ctx, 'ranked', { validatedOnly: true })
    assertError(t, await submit(ctx, 'ranked', user.userId, 5), 403, 'VALIDATED_SUBMIT_REQUIRED')
    const validated = await submitScore(ctx.app.db, ctx.app.events, {
      boardKey: 'ranked',
      userId: user.userId,
      score: 5,
      validated: true,
      now: clock.now(),
    })
    t.match(validated, { leaderboardKey: 'ranked', score: 5, improved: true, position: 1 })

    await createBoard(ctx, 'banland')
    await submit(ctx, 'banland', user.userId, 100)
    await submit(ctx, 'banland', other.userId, 50)
    const ban = await admin({
      method: 'PUT',
      url: `${board('banland')}/bans/${user.userId}`,
      payload: { reason: 'cheating' },
    })
    t.equal(ban.statusCode, 200)
    t.match(ban.json(), { leaderboardKey: 'banland', userId: user.userId, banned: true, reason: 'cheating' })
    assertError(t, await submit(ctx, 'banland', user.userId, 200), 403, 'PLAYER_BANNED')
    const top = (await call({ method: 'GET', url: `${board('banland')}/top` })).json()
    t.same(
      top.entries.map((e: any) => [e.userId, e.position]),
      [[other.userId, 1]],
      'the banned entry is hidden',
    )
    t.equal(top.total, 1)
    t.match((await call({ method: 'GET', url: `${board('banland')}/rank?userId=${user.userId}` })).json(), {
      ranked: false,
      position: 0,
    })
    const listed = (await admin({ method: 'GET', url: `${board('banland')}/entries` })).json().items
    t.same(
      listed.map((e: any) => [e.position, e.hidden]),
      [
        [1, false],
        [null, true],
      ],
      'the operator sees the hidden entry',
    )
    t.match((await admin({ method: 'DELETE', url: `${board('banland')}/bans/${user.userId}` })).json(), {
      banned: false,
    })
    t.equal(
      (await call({ method: 'GET', url: `${board('banland')}/rank?userId=${user.userId}` })).json().position,
      1,
      'shown again after the ban',
    )
    assertError(t, await admin({ method: 'DELETE', url: `${board('banland')}/bans/${user.userId}` }), 404, 'NOT_FOUND')
    assertError(
      t,
      await admin({ method: 'PUT', url: `${board('banland')}/bans/${UNKNOWN_USER}`, payload: {} }),
      404,
      'USER_NOT_FOUND',
    )
  })

  t.test(
    'metadata is kept for the operator when the score changes; entries removed, boards reset and deleted',
    async (t) => {
      const [user, other] = [await createUser(ctx), await createUser(ctx)]
      await createBoard(ctx, 'meta board')
      await submit(ctx, 'meta board', user.userId, 10, { metadata: 'level=3' })
      await submit(ctx, 'meta board', user.userId, 5, { metadata: { ignored: true } })
      await submit(ctx, 'meta board', other.userId, 7, { metadata: { weapon: 'bow' } })
      const items = (await admin({ method: 'GET', url: `${board('meta board')}/entries?limit=1` })).json()
      t.match(items.items[0], { position: 1, userId: user.userId, score: 10, metadata: 'level=3', hidden: false })
      const next = (
        await admin({ method: 'GET', url: `${board('meta board')}/entries?limit=1&cursor=${items.nextCursor}` })
      ).json()
      t.match(next.items[0], { position: 2, userId: other.userId, metadata: { weapon: 'bow' } })
      t.equal(next.nextCursor, null)
      t.notOk(
        'metadata' in (await call({ method: 'GET', url: `${board('meta board')}/top` })).json().entries[0],
        'clients never see metadata',
      )
      assertError(
        t,
        await admin({ method: 'GET', url: `${board('meta board')}/entries?cursor=bogus` }),
        400,
        'VALIDATION_ERROR',
      )

      t.same((await admin({ method: 'DELETE', url: `${board('meta board')}/entries/${user.userId}` })).json(), {
        leaderboardKey: 'meta board',
        userId: user.userId,
        deleted: true,
      })
      t.match((await call({ method: 'GET', url: `${board('meta board')}/rank?userId=${other.userId}` })).json(), {
        position: 1,
        total: 1,
      })
      assertError(
        t,
        await admin({ method: 'DELETE', url: `${board('meta board')}/entries/${user.userId}` }),
        404,
        'NOT_FOUND',
      )

      const reset = await admin({ method: 'POST', url: `${board('meta board')}/reset` })
      t.equal(reset.statusCode, 200)
      t.equal(reset.json().scoreCount, 0)
      t.equal((await call({ method: 'GET', url: `${board('meta board')}/top` })).json().total, 0)
      t.same((await admin({ method: 'DELETE', url: board('meta board') })).json(), {
        leaderboardKey: 'meta board',
        deleted: true,
      })
      assertError(t, await admin({ method: 'DELETE', url: board('meta board') }), 404, 'LEADERBOARD_NOT_FOUND')
      assertError(
        t,
        await admin({ method: 'PUT', url: board('bad'), payload: { minScore: 10, maxScore: 5 } }),
        400,
        'VALIDATION_ERROR',
      )
      assertError(
        t,
        await admin({ method: 'PUT', url: board('bad'), payload: { sortOrder: 'up' } }),
        400,
        'VALIDATION_ERROR',
      )
      assertError(t, await call({ method: 'PUT', url: board('bad'), payload: {} }), 404, 'NOT_FOUND')
    },
  )

  t.test('a rename or a cosmetic change shows on the board at once', async (t) => {
    const user = await createUser(ctx, { username: 'Before' })
    await createBoard(ctx, 'live')
    await submit(ctx, 'live', user.userId, 10)
    await call({
      method: 'POST',
      url: '/user-management/change-name',
      headers: bearer(user),
      payload: { userId: user.userId, newName: 'After' },
    })
    await createCosmetic(ctx, 'live-avatar', 'avatar')
    await call({
      method: 'PUT',
      url: '/player-profile',
      headers: bearer(user),
      payload: { userId: user.userId, avatarId: 'live-avatar' },
    })
    const entry = (await call({ method: 'GET', url: `${board('live')}/top` })).json().entries[0]
    t.equal(entry.username, 'After')
    t.same(entry.profile, { avatarId: 'live-avatar', frameId: null, badges: [] })
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

    // Contract revision 3: an integer limit or range out of range is clamped as the PHP server does.
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
