import t from 'tap'
import { buildTestApp, eachDialect, freshDatabase, TestClock, type TestApp } from '../../helpers/app.js'
import { createUser, type SignedUpUser } from '../../fixtures/users.js'
import { board, createBoard } from '../../fixtures/leaderboard.js'
import { getState, putRules, putValue, run, submitRun } from '../../fixtures/validated-actions.js'

const ATTEMPTS = 10

/**
 * One ticket submitted ATTEMPTS times at once (spread over the given apps): exactly one is accepted,
 * the board (an `increment` board, where a second write would show) gets the score once, the
 * balance one credit, and every attempt is recorded.
 */
async function raceOneTicket(t: Test, apps: TestApp[], boardKey: string, user: SignedUpUser) {
  const ctx = apps[0]!
  const started = await run(ctx, user, boardKey)
  ctx.clock.advance(5000)
  const results = await Promise.all(
    Array.from({ length: ATTEMPTS }, (_, i) =>
      submitRun(apps[i % apps.length]!, user, started.ticket, 70, { earned: [{ key: 'gold', amount: 10 }] }),
    ),
  )
  const statuses = results.map((r) => `${r.statusCode} ${r.json().code ?? 'ACCEPTED'}`)
  t.equal(statuses.filter((s) => s === '200 ACCEPTED').length, 1, 'exactly one accepted')
  t.equal(statuses.filter((s) => s === '422 TICKET_CONSUMED').length, ATTEMPTS - 1, 'the others: TICKET_CONSUMED')
  const rank = (await ctx.call({ method: 'GET', url: `${board(boardKey)}/rank?userId=${user.userId}` })).json()
  t.equal(rank.score, 70, 'one score write')
  t.equal((await getState(ctx, user)).json().values[0].balance, 10, 'one credit')
  const submissions = await ctx.app.db
    .selectFrom('validated_submissions')
    .select('code')
    .where('run_id', '=', started.runId)
    .execute()
  t.equal(submissions.length, ATTEMPTS, 'every attempt recorded')
}

type Test = Parameters<Parameters<typeof eachDialect>[1]>[0]

eachDialect(t, async (t, dialect) => {
  t.test('10 concurrent submits of one ticket on one server', async (t) => {
    const ctx = await buildTestApp(t, dialect)
    await createBoard(ctx, 'sum', { updateStrategy: 'increment' })
    await putValue(ctx, 'gold', {})
    await putRules(ctx, 'sum', { maxAcceptedRunsPerDay: 100 })
    for (let round = 0; round < 2; round++) await raceOneTicket(t, [ctx], 'sum', await createUser(ctx))
  })

  const sharedDatabase =
    dialect === 'sqlite' ? 'two instances share a database server; an embedded SQLite file is one server' : false
  t.test(
    '10 concurrent submits of one ticket across two server instances on one database',
    { skip: sharedDatabase },
    async (t) => {
      const dbEnv = await freshDatabase(t, dialect)
      const clock = new TestClock()
      const first = await buildTestApp(t, dialect, { dbEnv, clock })
      const second = await buildTestApp(t, dialect, { dbEnv, clock })
      await createBoard(first, 'sum', { updateStrategy: 'increment' })
      await putValue(first, 'gold', {})
      for (let round = 0; round < 3; round++) await raceOneTicket(t, [first, second], 'sum', await createUser(first))
    },
  )

  t.test('concurrent runs of one player against maxAcceptedRunsPerDay: never more accepted than allowed', async (t) => {
    const ctx = await buildTestApp(t, dialect)
    await createBoard(ctx, 'limited')
    await putRules(ctx, 'limited', { maxAcceptedRunsPerDay: 3 })
    const user = await createUser(ctx)
    const runs = []
    for (let i = 0; i < 6; i++) runs.push(await run(ctx, user, 'limited'))
    const results = await Promise.all(runs.map((r, i) => submitRun(ctx, user, r.ticket, i)))
    t.equal(results.filter((r) => r.statusCode === 200).length, 3)
    t.equal(results.filter((r) => r.statusCode === 403 && r.json().code === 'SCORE_LIMIT_REACHED').length, 3)
  })
})
