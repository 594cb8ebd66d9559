import t from 'tap'
import { gameIdOf } from '../../../db/games.js'
import type { Db } from '../../../db/types.js'
import { JobRunner, REST_AFTER_MS, REST_EVERY_MS, type JobGame } from '../../../platform/jobs/runner.js'
import { buildTestApp, eachDialect, stopBackgroundWork } from '../../helpers/app.js'
import { addGame } from '../../helpers/second-game.js'

/**
 * The job runner runs every job for every game, each in that game's own database (the run's lease in
 * its `job_runs`, the job handed its handle); a game's failing or hanging job neither stops nor
 * delays the other games' jobs; a game added while the runner runs is picked up at its next look; a
 * game nobody plays rests, and its next request wakes it.
 */

const MINUTE = 60_000

const claimsIn = (db: Db, name: string) =>
  db.selectFrom('job_runs').select(['claimed_by', 'claimed_at']).where('name', '=', name).execute()

eachDialect(t, async (t, dialect) => {
  t.test("the app's jobs run for every game, each claimed and run in the game's own database", async (t) => {
    const ctx = await buildTestApp(t, dialect)
    await stopBackgroundWork(ctx.app)
    const second = await addGame(ctx, 'second')
    const seen: string[] = []
    ctx.app.jobs.add({ name: 'test.which-db', everyMs: MINUTE, run: async (db) => void seen.push(gameIdOf(db)) })

    const ran = await ctx.app.jobs.runDue()
    t.ok(ran.includes('analytics-rollup') && ran.includes('second/analytics-rollup'), 'the rollup ran for both games')
    t.ok(ran.includes('second/test.which-db'), "the second game's run is named with its game")
    t.ok(ran.includes('operators.session-sweep'), "a server-wide job runs in the server's database")
    t.notOk(
      ran.some((name) => name.endsWith('/operators.session-sweep')),
      'and in no other game’s',
    )
    t.same(
      seen.sort(),
      ctx.app.games
        .list()
        .map((game) => game.id)
        .sort(),
      'the job was handed each game’s database once',
    )
    t.ok(seen.includes('second'), 'the added game’s among them')
    for (const db of [ctx.app.db, second.db]) {
      const rows = await claimsIn(db, 'test.which-db')
      t.equal(rows.length, 1, `its lease is a row of ${gameIdOf(db)}'s own job_runs`)
      t.equal(rows[0]!.claimed_by, ctx.app.jobs.id)
    }

    t.same(await ctx.app.jobs.runDue(), [], 'neither game runs a job again within its period')
    ctx.clock.advance(MINUTE)
    const again = await ctx.app.jobs.runDue()
    t.ok(again.includes('test.which-db') && again.includes('second/test.which-db'), 'both again after it')
  })

  t.test("a game's failing or hanging job stops no other game's; an added game is picked up", async (t) => {
    const ctx = await buildTestApp(t, dialect)
    await stopBackgroundWork(ctx.app)
    const second = await addGame(ctx, 'second')
    const third = await addGame(ctx, 'third')
    const games: JobGame[] = [ctx.app.games.default, second.game]
    // Every game here is played (a request answered at each period), so none rests.
    const play = () => {
      for (const game of [ctx.app.games.default, second.game, third.game]) ctx.app.games.answered(game)
    }
    play()
    const logged: Array<{ details: Record<string, unknown>; message: string }> = []
    const runner = new JobRunner(
      () => games,
      ctx.clock,
      { error: (details, message) => logged.push({ details: details as Record<string, unknown>, message }) },
      20,
    )
    const runs: string[] = []
    let release: () => void = () => {}
    const hanging = new Promise<void>((resolve) => (release = resolve))
    runner.add({
      name: 'test.fails-in-second',
      everyMs: MINUTE,
      run: async (db) => {
        if (gameIdOf(db) === 'second') throw new Error('boom')
      },
    })
    runner.add({
      name: 'test.hangs-in-second',
      everyMs: MINUTE,
      run: async (db) => {
        runs.push(gameIdOf(db))
        if (gameIdOf(db) === 'second') await hanging
      },
    })
    runner.start()
    t.teardown(async () => {
      release()
      await runner.stop()
    })
    const until = async (what: string, done: () => boolean) => {
      for (let i = 0; i < 250 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 20))
      t.ok(done(), what)
    }
    await until('both games ran the job once', () => runs.includes('default') && runs.includes('second'))
    t.match(logged, [{ details: { job: 'test.fails-in-second', game: 'second' }, message: /background job failed/ }])

    // The second game's run still hangs: the default game's next periods run regardless.
    for (let period = 2; period <= 3; period++) {
      ctx.clock.advance(MINUTE)
      play()
      await until(
        `the default game ran again (period ${period})`,
        () => runs.filter((g) => g === 'default').length === period,
      )
    }
    t.equal(runs.filter((g) => g === 'second').length, 1, 'the hanging game is passed over, not run twice at once')

    games.push(third.game)
    await until('a game added while it runs is picked up', () => runs.includes('third'))
    t.equal((await claimsIn(third.db, 'test.hangs-in-second')).length, 1, "in the added game's own job_runs")

    release()
    ctx.clock.advance(MINUTE)
    play()
    await until('the second game runs again once its run ended', () => runs.filter((g) => g === 'second').length === 2)
  })

  t.test(
    'a game nobody plays rests: its jobs are looked at once every REST_EVERY_MS; a request wakes it',
    async (t) => {
      const ctx = await buildTestApp(t, dialect)
      await stopBackgroundWork(ctx.app)
      const idle = await addGame(ctx, 'idle')
      const played = ctx.app.games.default
      const runner = new JobRunner(() => [played, idle.game], ctx.clock, { error: () => {} }, 20)
      const runs: string[] = []
      runner.add({ name: 'test.counted', everyMs: MINUTE, run: async (db) => void runs.push(gameIdOf(db)) })
      const count = (game: string) => runs.filter((g) => g === game).length
      const until = async (what: string, done: () => boolean) => {
        for (let i = 0; i < 250 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 20))
        t.ok(done(), what)
      }
      const looks = () => new Promise((resolve) => setTimeout(resolve, 200))
      ctx.app.games.answered(played)
      runner.start()
      t.teardown(() => runner.stop())
      await until('both games are looked at on the first look', () => count('default') === 1 && count('idle') === 1)

      ctx.clock.advance(REST_AFTER_MS)
      ctx.app.games.answered(played)
      await until('the played game runs its job again once its period has passed', () => count('default') === 2)
      await looks()
      t.equal(count('idle'), 1, 'the idle game, due as well, rests: about ten looks and no run')

      ctx.app.games.answered(idle.game)
      await until('a request of the idle game wakes it: its due job runs at the next look', () => count('idle') === 2)

      ctx.clock.advance(REST_AFTER_MS)
      ctx.app.games.answered(played)
      await until('the played game runs again', () => count('default') === 3)
      await looks()
      t.equal(count('idle'), 2, 'a minute without requests: the idle game rests again')
      ctx.clock.advance(REST_EVERY_MS)
      await until('at rest, it is still looked at once every REST_EVERY_MS', () => count('idle') === 3)
      t.equal(
        (await claimsIn(idle.db, 'test.counted'))[0]!.claimed_by,
        runner.id,
        'and the run is leased in its job_runs as any other',
      )
    },
  )
})
