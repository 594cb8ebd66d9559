// Boards that reset: the period keys (UTC days, ISO weeks, months) and the count tree's ranges, then a
// daily board that starts empty at 00:00 UTC and still answers for the previous period.
import t from 'tap'
import { buildTestApp, eachDialect } from '../../helpers/app.js'
import { createUser } from '../../fixtures/users.js'
import { board, createBoard, submit } from '../../fixtures/leaderboard.js'
import { betterRanges, countDeltas, periodKey, previousPeriodKey } from '../../../features/leaderboard/ranking.js'

const DAY = 24 * 3600 * 1000

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
  const { call, clock } = ctx

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
})
