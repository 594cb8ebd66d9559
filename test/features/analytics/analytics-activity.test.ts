import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs } from 'kysely'
import { buildApp } from '../../../app.js'
import { watchStatements } from '../../../db/statements.js'
import { createDb, MIGRATION_QUERY_TIMEOUT_MS } from '../../../db/index.js'
import { migrateToLatest } from '../../../db/migrate.js'
import { MIGRATIONS } from '../../../app.js'
import { ActivityRecorder, MAX_PLAYERS_PER_DAY } from '../../../features/analytics/activity.js'
import {
  API_KEY,
  APP,
  buildTestApp,
  eachDialect,
  freshDatabase,
  stopBackgroundWork,
  testConfig,
  testProcessMetrics,
  TestClock,
  type Dialect,
} from '../../helpers/app.js'

/**
 * Activity recording (contract §12) costs a request no statement: the same requests send the same
 * statements with recording on and off, and the marks reach the database in one batched write. Two app
 * instances on one database that see the same players on the same day count each player once.
 */

const DAY = 86_400_000

/**
 * Holds the recorder's statements when asked (a slow database), then lets the held one end well or
 * fail; counts the player ids each statement carried.
 */
class StallingDatabase implements KyselyPlugin {
  /** The player ids of every statement, in order. */
  readonly sent: string[] = []
  private holding: { entered: () => void; outcome: Promise<'ok' | 'fail'> } | null = null
  private release: (outcome: 'ok' | 'fail') => void = () => {}

  /** The next statement waits after it ran; resolves once one does. */
  hold(): Promise<void> {
    return new Promise((entered) => {
      this.holding = { entered, outcome: new Promise((resolve) => (this.release = resolve)) }
    })
  }

  end(outcome: 'ok' | 'fail') {
    this.release(outcome)
  }

  transformQuery(args: PluginTransformQueryArgs) {
    // The statement, not its SELECT of players, which the plugin sees once more on its own.
    if (args.node.kind === 'InsertQueryNode') this.sent.push(...new Set(JSON.stringify(args.node).match(/pl-\d+/g)))
    return args.node
  }

  async transformResult(args: PluginTransformResultArgs) {
    const holding = this.holding
    if (!holding) return args.result
    this.holding = null
    holding.entered()
    if ((await holding.outcome) === 'fail') throw new Error('the database failed')
    return args.result
  }
}

const player = (i: number) => `pl-${String(i).padStart(7, '0')}`

/** An app over a database whose statements are counted. */
async function countedApp(t: Test, dialect: Dialect, activity: boolean, clock: TestClock) {
  const env = { ...(await freshDatabase(t, dialect)), ANALYTICS_ACTIVITY: String(activity) }
  const config = testConfig(env)
  // Migrated first on a connection of their own, without the per-query bound (as the server does).
  const migrationDb = createDb({ ...config, DB_POOL_SIZE: 1, DB_QUERY_TIMEOUT_MS: MIGRATION_QUERY_TIMEOUT_MS })
  await migrateToLatest(migrationDb, MIGRATIONS)
  await migrationDb.destroy()
  let statements = 0
  const db = createDb(config)
  t.teardown(watchStatements(db, () => statements++))
  const app = await buildApp({ config, clock, db, processMetrics: testProcessMetrics() })
  t.teardown(async () => {
    await app.close()
    await db.destroy()
  })
  // The background writers stay out of the counts: the test writes the marks itself, when it says.
  await stopBackgroundWork(app)
  return { app, statements: () => statements }
}

const call = (app: FastifyInstance, method: 'GET' | 'POST', url: string, payload?: object, token?: string) =>
  app.inject({
    method,
    url: `${APP}${url}`,
    headers: { 'x-api-key': API_KEY, ...(token && { authorization: `Bearer ${token}` }) },
    ...(payload && { payload }),
  })

/** A player's morning: sign up, sign in, play, save, submit, look at the board. Statements per request. */
async function session(app: FastifyInstance, statements: () => number): Promise<number[]> {
  const counts: number[] = []
  const measured = async (request: () => Promise<{ statusCode: number; body: string }>) => {
    const before = statements()
    const res = await request()
    if (res.statusCode >= 400) throw new Error(`${res.statusCode} ${res.body}`)
    counts.push(statements() - before)
    return JSON.parse(res.body)
  }
  const user = await measured(() => call(app, 'POST', '/user-management/signup', { type: 'ANONYMOUS' }))
  const signedIn = await measured(() =>
    call(app, 'POST', '/user-management/signin', { type: 'ANONYMOUS', anonymousToken: user.anonymousToken }),
  )
  const token = signedIn.accessToken as string
  for (let i = 0; i < 3; i++) {
    await measured(() =>
      call(app, 'POST', '/user-logs/create', { userId: user.userId, message: `m${i}`, type: 'INFO' }),
    )
    await measured(() =>
      call(app, 'POST', '/leaderboards/default/submit', { userId: user.userId, score: 10 + i }, token),
    )
    await measured(() => call(app, 'POST', '/cloud-save/save', { userId: user.userId, saveData: `s${i}` }, token))
    await measured(() => call(app, 'POST', '/user-management/check-auth', { userId: user.userId }, token))
    await measured(() => call(app, 'GET', '/leaderboards/default/top?limit=10'))
  }
  return counts
}

eachDialect(t, async (t, dialect) => {
  t.test('recording adds no statement to any request; the marks are one batched write', async (t) => {
    const clock = new TestClock(Date.parse('2026-11-22T10:00:00.000Z'))
    const on = await countedApp(t, dialect, true, clock)
    const off = await countedApp(t, dialect, false, clock)
    const withRecording = await session(on.app, on.statements)
    const without = await session(off.app, off.statements)
    t.same(withRecording, without, `the same statements per request: ${withRecording.join(', ')}`)
    t.ok(
      withRecording.every((n) => n > 0),
      'the counter sees every request',
    )

    const activity = (app: FastifyInstance) => app.db.selectFrom('player_activity').selectAll().execute()
    t.same(await activity(on.app), [], 'nothing written while serving')
    const before = on.statements()
    await on.app.analytics.flush()
    t.equal(on.statements() - before, 2, 'one statement writes the marks of the day, one the submit counts')
    const rows = await activity(on.app)
    t.equal(rows.length, 1)
    t.equal(rows[0]!.day, Math.floor(clock.now() / DAY))
    const again = on.statements()
    await on.app.analytics.flush()
    t.equal(on.statements(), again, 'nothing left: a flush with nothing to write sends nothing')
    // The same player again that day: remembered by this process, not written twice.
    const userId = rows[0]!.user_id
    const res = await call(on.app, 'POST', '/user-logs/create', { userId, message: 'again', type: 'INFO' })
    t.equal(res.statusCode, 201)
    const later = on.statements()
    await on.app.analytics.flush()
    t.equal(on.statements(), later, 'a player already marked today is not written again')

    const offBefore = off.statements()
    await off.app.analytics.flush()
    t.equal(off.statements() - offBefore, 1, 'with recording off only the submit counts are written')
    t.same(await activity(off.app), [], 'and no activity')
  })

  t.test('the marks not yet written stay within their bound while a flush is slow or fails', async (t) => {
    const { app } = await buildTestApp(t, dialect)
    const now = Date.parse('2026-11-22T10:00:00.000Z')
    for (const outcome of ['fail', 'ok'] as const) {
      const database = new StallingDatabase()
      const warnings: Array<{ details: Record<string, unknown>; message: string }> = []
      const log = { warn: (details: object, message: string) => warnings.push({ details: { ...details }, message }) }
      const recorder = new ActivityRecorder(app.db.withPlugin(database), log, true)
      const stalled = database.hold()
      // The bound-th mark starts a flush, whose first statement then stalls; 50,000 players come meanwhile.
      for (let i = 0; i < MAX_PLAYERS_PER_DAY; i++) recorder.mark(player(i), now)
      await stalled
      for (let i = MAX_PLAYERS_PER_DAY; i < MAX_PLAYERS_PER_DAY + 50_000; i++) recorder.mark(player(i), now)
      database.end(outcome)
      await recorder.flush()
      await recorder.flush()
      const sent = new Set(database.sent)
      t.equal(sent.size, MAX_PLAYERS_PER_DAY, `${outcome}: the marks written are the bound's, none made past it`)
      t.notOk(sent.has(player(MAX_PLAYERS_PER_DAY)), `${outcome}: a mark made past the bound is not held`)
      const warned = warnings.find((w) => w.message.startsWith('activity marks dropped'))
      t.equal(warned?.details.dropped, 50_000, `${outcome}: the 50,000 marks past the bound are counted in a warning`)
      // A dropped player is not remembered as seen: their next request marks them.
      database.sent.length = 0
      recorder.mark(player(MAX_PLAYERS_PER_DAY + 1), now)
      await recorder.flush()
      t.same(
        database.sent,
        [player(MAX_PLAYERS_PER_DAY + 1)],
        `${outcome}: a dropped player is marked at their next request`,
      )
    }
  })

  t.test('two app instances on one database count each player once a day', async (t) => {
    const dbEnv = await freshDatabase(t, dialect)
    const clock = new TestClock(Date.parse('2026-11-22T10:00:00.000Z'))
    const first = await buildTestApp(t, dialect, { dbEnv, clock })
    const second = await buildTestApp(t, dialect, { dbEnv, clock })
    const players = []
    for (let i = 0; i < 20; i++) {
      const res = await first.call({ method: 'POST', url: '/user-management/signup', payload: { type: 'ANONYMOUS' } })
      players.push(res.json().userId as string)
    }
    // Both instances see every player, twice, on the same day; a few on the next day too.
    for (const instance of [first, second, second, first]) {
      await Promise.all(
        players.map((userId) =>
          instance.call({ method: 'POST', url: '/user-logs/create', payload: { userId, message: 'x', type: 'INFO' } }),
        ),
      )
    }
    await Promise.all([first.app.analytics.flush(), second.app.analytics.flush()])
    clock.advance(DAY)
    for (const userId of players.slice(0, 5)) {
      await second.call({ method: 'POST', url: '/user-logs/create', payload: { userId, message: 'y', type: 'INFO' } })
      await first.call({ method: 'POST', url: '/user-logs/create', payload: { userId, message: 'y', type: 'INFO' } })
    }
    // Both write at once, then both run the rollup at once: one claims each run and each past day.
    await Promise.all([first.app.analytics.flush(), second.app.analytics.flush()])
    clock.advance(31_000)
    const ran = await Promise.all([first.app.jobs.runDue(), second.app.jobs.runDue()])
    t.equal(ran.flat().filter((name) => name === 'analytics-rollup').length, 1, 'one instance ran the rollup')
    const rows = await first.app.db.selectFrom('player_activity').select(['day']).execute()
    t.equal(rows.length, 25, '20 players on the first day, 5 on the second')
    const daily = await first.admin({
      method: 'GET',
      url: '/analytics/daily?from=2026-11-22&to=2026-11-23&metrics=active',
    })
    t.same(daily.json().series.active, [20, 5])
    const built = await first.app.db.selectFrom('analytics_days').selectAll().execute()
    t.equal(built.length, 1, 'the past day was built once')
  })
})
