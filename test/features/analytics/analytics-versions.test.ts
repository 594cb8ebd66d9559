import t from 'tap'
import { buildTestApp, eachDialect, stopBackgroundWork, TestClock, type TestApp } from '../../helpers/app.js'
import { watchStatements } from '../../../db/statements.js'
import { report, SESSION } from '../../fixtures/crash-reporting.js'
import { runRollup, VERSIONS_PER_DAY } from '../../../features/analytics/rollup.js'

/**
 * Players choose the app versions they send: 2,000 distinct versions in one day leave the rollup
 * with at most VERSIONS_PER_DAY rows per per-version metric and one `other` row, its writes per run
 * do not grow with the versions (rows and statements counted), a run with nothing new writes
 * nothing, the totals stay exact, and a version that was not kept on a day answers null that day.
 */

const DAY = 86_400_000
const MANY = 2_000
const at = (iso: string) => Date.parse(iso)

async function sessions(ctx: TestApp, list: Array<[sessionId: string, appVersion: string]>) {
  // Twenty at a time: quick, and a bounded number of requests in flight.
  for (let i = 0; i < list.length; i += 20) {
    const answers = await Promise.all(
      list
        .slice(i, i + 20)
        .map(([sessionId, appVersion]) =>
          ctx.call({ method: 'POST', url: SESSION, payload: { sessionId, appVersion, platform: 'android' } }),
        ),
    )
    const failed = answers.find((res) => res.statusCode !== 201)
    if (failed) throw new Error(`session: ${failed.statusCode} ${failed.body}`)
  }
}

/** `count` sessions of one version, named after it. */
const of = (appVersion: string, count: number, first = 0): Array<[string, string]> =>
  Array.from({ length: count }, (_, i) => [`${appVersion}#${first + i}`, appVersion])

/** One rollup run, watched: its statements, the rows its INSERTs carry, and its DELETEs. */
async function watchedRun(ctx: TestApp) {
  const writes = { statements: 0, rowsWritten: 0, deletes: 0 }
  const stop = watchStatements(ctx.app.db, (text) => {
    // A crash report raises a webhook event whose look-up may still be on its way: not the rollup's.
    if (/webhook/.test(text)) return
    writes.statements++
    if (/^insert into [`"]analytics_daily/i.test(text))
      writes.rowsWritten += text.match(/\((?:\?|\$\d+), (?:\?|\$\d+), (?:\?|\$\d+), (?:\?|\$\d+)\)/g)!.length
    if (/^delete from [`"]analytics_daily/i.test(text)) writes.deletes++
  })
  try {
    await runRollup(ctx.app.db, ctx.clock.now())
  } finally {
    stop()
  }
  return writes
}

const versionRows = async (ctx: TestApp, metric: string, day: number) =>
  (
    await ctx.app.db
      .selectFrom('analytics_daily')
      .select(['dimension', 'value'])
      .where('metric', '=', metric)
      .where('day', '=', day)
      .orderBy('dimension')
      .execute()
  ).map((r) => [r.dimension, Number(r.value)])

eachDialect(t, async (t, dialect) => {
  t.test(`${MANY} app versions in a day: bounded rows, bounded writes, exact totals`, async (t) => {
    const ctx = await buildTestApp(t, dialect, { clock: new TestClock(at('2026-11-20T08:00:00.000Z')) })
    // The test runs the rollup itself, with nothing else sending statements meanwhile.
    await stopBackgroundWork(ctx.app)
    const day = Math.floor(ctx.clock.now() / DAY)
    const popular = Array.from({ length: VERSIONS_PER_DAY }, (_, i) => `2.0.${i}`)
    // 2.0.i has 30 − i sessions: the twenty most played, ahead of 2.1 (5) and everything else (1).
    await sessions(ctx, [...popular.flatMap((v, i) => of(v, 30 - i)), ...of('2.1', 5)])
    t.equal((await report(ctx, { sessionId: '2.0.0#0', appVersion: '2.0.0', message: 'boom' })).statusCode, 201)
    await sessions(ctx, of('0.9', 1))
    t.equal((await report(ctx, { sessionId: '0.9#0', appVersion: '0.9', message: 'boom' })).statusCode, 201)

    const few = await watchedRun(ctx)
    t.same(
      (await versionRows(ctx, 'sessions@version', day)).map(([v]) => v),
      [...popular].sort(),
      'the twenty versions with the most sessions have rows of their own',
    )
    t.same(await versionRows(ctx, 'sessions@other', day), [['', 6]], '2.1 and 0.9 are summed under other')
    t.same(await versionRows(ctx, 'crashes@other', day), [['', 1]])
    t.same(await versionRows(ctx, 'crashes@version', day), [['2.0.0', 1]])

    // ---- 2,000 more versions, one session each (and one crash among them) ----
    await sessions(
      ctx,
      Array.from({ length: MANY }, (_, i) => [`many-${i}`, `1.0.${i}`]),
    )
    t.equal((await report(ctx, { sessionId: 'many-7', appVersion: '1.0.7', message: 'boom' })).statusCode, 201)
    const many = await watchedRun(ctx)
    t.comment(`with 27 versions: ${JSON.stringify(few)}; with ${MANY + 27}: ${JSON.stringify(many)}`)
    t.equal(many.statements, few.statements, 'as many statements with 2,027 versions as with 27')
    t.ok(many.rowsWritten <= few.rowsWritten, `no more rows written (${many.rowsWritten} ≤ ${few.rowsWritten})`)
    t.equal(many.rowsWritten, 6, 'only the changed rows: the three totals and the three sums of the others')
    t.equal((await versionRows(ctx, 'sessions@version', day)).length, VERSIONS_PER_DAY)
    t.same(await versionRows(ctx, 'sessions@other', day), [['', 6 + MANY]])
    const stored = await ctx.app.db
      .selectFrom('analytics_daily')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('day', '=', day)
      .executeTakeFirst()
    t.ok(Number(stored!.n) <= 3 * (VERSIONS_PER_DAY + 1) + 12, `the day holds ${stored!.n} rows`)

    const idle = await watchedRun(ctx)
    t.equal(idle.rowsWritten, 0, 'a run with nothing new writes no row')
    t.equal(idle.deletes, 0, 'and deletes none')

    // ---- a version overtakes 2.0.19: its rows go, the newcomer's come ----
    await sessions(ctx, of('2.1', 10, 5))
    const moved = await watchedRun(ctx)
    t.equal(moved.deletes, 1, "one DELETE removes 2.0.19's row")
    t.ok(moved.rowsWritten <= 5, `and a few rows are written (${moved.rowsWritten})`)
    const kept = (await versionRows(ctx, 'sessions@version', day)).map(([v]) => v)
    t.ok(kept.includes('2.1') && !kept.includes('2.0.19'), '2.1 (15) is kept, 2.0.19 (11) is not')

    // ---- the answers: exact totals; a version not kept that day is null ----
    const total = popular.reduce((n, _, i) => n + 30 - i, 0) + 15 + 1 + MANY
    const daily = async (query: string) => {
      const res = await ctx.admin({ method: 'GET', url: `/analytics/daily?from=2026-11-20&to=2026-11-21${query}` })
      t.equal(res.statusCode, 200, res.body)
      return res.json().series
    }
    const metrics = '&metrics=sessions,crashes,crashFreeRate'
    ctx.clock.advance(DAY)
    // The next day: two versions only, so nothing is folded and a version without rows had nothing.
    await sessions(ctx, [...of('2.0.0', 4, 100), ...of('2.1', 1, 100)])
    await runRollup(ctx.app.db, ctx.clock.now())
    t.same(await daily(metrics), { sessions: [total, 5], crashes: [3, 0], crashFreeRate: [(total - 3) / total, 1] })
    t.same(await daily(`${metrics}&appVersion=2.0.0`), {
      sessions: [30, 4],
      crashes: [1, 0],
      crashFreeRate: [29 / 30, 1],
    })
    t.same(
      await daily(`${metrics}&appVersion=1.0.7`),
      { sessions: [null, 0], crashes: [null, 0], crashFreeRate: [null, null] },
      'folded into other on the first day: unknown, not 0; absent on the second: 0',
    )
    t.same((await daily(`${metrics}&appVersion=2.1`)).sessions, [15, 1])
  })
})
