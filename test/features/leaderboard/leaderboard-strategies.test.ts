// How a board keeps a player's scores: the sort order, the best, latest and increment strategies, the
// score bounds, and 50 concurrent submits for one player that lose no increment and keep the best.
import t from 'tap'
import { assertError, buildTestApp, eachDialect } from '../../helpers/app.js'
import { createUser } from '../../fixtures/users.js'
import { board, createBoard, submit } from '../../fixtures/leaderboard.js'

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  const { call } = ctx

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
})
