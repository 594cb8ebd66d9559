import t from 'tap'
import type { Db } from '../../../db/types.js'
import { dayOf } from '../../../features/analytics/days.js'
import { buildTestApp, eachDialect, stopBackgroundWork } from '../../helpers/app.js'
import { addGame } from '../../helpers/second-game.js'

/**
 * Each game's activity marks and submit counts are gathered by its own recorder and written into
 * its own database; the rollup job runs for every game and builds each game's series from its rows.
 */

async function addPlayer(db: Db, id: string, now: number) {
  const unset = { anonymous_token_hash: null, banned_at: null, ban_reason: null, password_hash: null, email_key: null }
  await db
    .insertInto('users')
    .values({
      id,
      username: `p-${id}`,
      email: null,
      is_anonymous: 1,
      is_verified: 0,
      ...unset,
      created_at: now,
      updated_at: now,
    })
    .execute()
}

const rollups = (db: Db, metric: string) =>
  db.selectFrom('analytics_daily').select(['dimension', 'day', 'value']).where('metric', '=', metric).execute()

eachDialect(t, async (t, dialect) => {
  t.test("a second game's activity is written into its database and rolled up there", async (t) => {
    const ctx = await buildTestApp(t, dialect)
    await stopBackgroundWork(ctx.app)
    const { game: second } = await addGame(ctx, 'second')
    const now = ctx.clock.now()
    const today = dayOf(now)
    await addPlayer(second.db, 'p1', now)
    await addPlayer(second.db, 'p2', now)
    await addPlayer(ctx.app.db, 'd1', now)

    const recorder = ctx.app.analyticsRecorders.of(second)
    t.not(recorder, ctx.app.analytics, 'a recorder of its own')
    recorder.mark('p1', now)
    recorder.mark('p2', now)
    recorder.submitted('weekly', now)
    ctx.app.analytics.mark('d1', now)
    await Promise.all([recorder.flush(), ctx.app.analytics.flush()])

    const marked = (db: Db) => db.selectFrom('player_activity').select('user_id').orderBy('user_id').execute()
    t.same(
      await marked(second.db),
      [{ user_id: 'p1' }, { user_id: 'p2' }],
      "the second game's players, in its database",
    )
    t.same(await marked(ctx.app.db), [{ user_id: 'd1' }], "the default game's player, in its own")
    t.same(await rollups(second.db, 'submits'), [{ dimension: '', day: today, value: 1 }])
    t.same(await rollups(ctx.app.db, 'submits'), [], 'no submit counted in the default game')

    ctx.clock.advance(31_000)
    const ran = await ctx.app.jobs.runDue()
    t.ok(ran.includes('analytics-rollup') && ran.includes('second/analytics-rollup'), 'the rollup ran for both')
    t.same(
      await rollups(second.db, 'active'),
      [{ dimension: '', day: today, value: 2 }],
      'two active in the second game',
    )
    t.same(await rollups(ctx.app.db, 'active'), [{ dimension: '', day: today, value: 1 }], 'one in the default game')
  })
})
