import t from 'tap'
import type { Test } from 'tap'
import { buildTestApp, eachDialect, stopBackgroundWork, type Dialect, type TestApp } from '../helpers/app.js'
import { watchStatements } from '../../db/statements.js'
import { createCosmetic } from '../fixtures/player-profile.js'
import { createGiftCode, redeemCode } from '../fixtures/gift-codes.js'
import { putRules, startRun, submitRun } from '../fixtures/validated-actions.js'
import { createBoard } from '../fixtures/leaderboard.js'
import type { SignedUpUser } from '../fixtures/users.js'
import { DEFAULT_BOARD } from '../../features/leaderboard/admin-service.js'

/**
 * Statements per request on the hot paths, counted at the driver (every round trip to the database:
 * BEGIN and COMMIT count). A change that adds one fails here: raise a bound only with a measurement
 * that says why. The bounds are per database: the engines take different paths for some writes.
 * PostgreSQL's, measured, are MySQL's: one above MySQL's would hide a round trip RETURNING could save.
 */
type Bounds = Record<Dialect, number>

async function counted(ctx: TestApp, work: () => Promise<{ statusCode: number; body: string }>) {
  const texts: string[] = []
  const stop = watchStatements(ctx.app.db, (sqlText) => texts.push(sqlText.replace(/\s+/g, ' ').slice(0, 140)))
  try {
    const response = await work()
    return { response, texts }
  } finally {
    stop()
  }
}

async function expectStatements(
  t: Test,
  ctx: TestApp,
  dialect: Dialect,
  name: string,
  bounds: Bounds,
  work: () => Promise<{ statusCode: number; body: string }>,
) {
  const { response, texts } = await counted(ctx, work)
  t.ok([200, 201].includes(response.statusCode), `${name}: ${response.statusCode} ${response.body.slice(0, 200)}`)
  t.ok(texts.length <= bounds[dialect], `${name}: ${texts.length} statements (bound ${bounds[dialect]})`, { texts })
  if (process.env.STATEMENTS_PRINT) t.comment(`${dialect} ${name}: ${texts.length}\n  ${texts.join('\n  ')}`)
  return response
}

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  // The background writers stopped, so the counts are the requests' own.
  await stopBackgroundWork(ctx.app)
  const { call, admin } = ctx
  const signup = async () => {
    const res = await call({ method: 'POST', url: '/user-management/signup', payload: {} })
    return res.json() as SignedUpUser
  }
  const player = await signup()
  const other = await signup()
  await call({ method: 'POST', url: '/leaderboard/submit', payload: { userId: other.userId, score: 500 } })
  await admin({ method: 'PUT', url: '/remote-config/game.speed', payload: { value: '3' } })
  const bearer = { authorization: `Bearer ${player.accessToken}` }
  const submit = (score: number) => () =>
    call({ method: 'POST', url: '/leaderboard/submit', payload: { userId: player.userId, score } })

  await expectStatements(t, ctx, dialect, 'first submit', { sqlite: 6, mysql: 1, postgres: 1 }, submit(100))
  await expectStatements(t, ctx, dialect, 'improving submit', { sqlite: 6, mysql: 1, postgres: 1 }, submit(200))
  await expectStatements(
    t,
    ctx,
    dialect,
    'submit that does not improve',
    { sqlite: 1, mysql: 1, postgres: 1 },
    submit(150),
  )
  await expectStatements(t, ctx, dialect, 'top', { sqlite: 4, mysql: 4, postgres: 4 }, () =>
    call({ method: 'GET', url: '/leaderboard/top?limit=10' }),
  )
  await expectStatements(t, ctx, dialect, 'rank', { sqlite: 3, mysql: 3, postgres: 3 }, () =>
    call({ method: 'GET', url: `/leaderboard/rank?userId=${player.userId}` }),
  )
  await expectStatements(t, ctx, dialect, 'around', { sqlite: 4, mysql: 4, postgres: 4 }, () =>
    call({ method: 'GET', url: `/leaderboard/around?userId=${player.userId}&range=10` }),
  )
  await expectStatements(t, ctx, dialect, 'profile get', { sqlite: 4, mysql: 4, postgres: 4 }, () =>
    call({ method: 'GET', url: `/player-profile?userId=${player.userId}`, headers: bearer }),
  )
  await expectStatements(t, ctx, dialect, 'profile put', { sqlite: 9, mysql: 9, postgres: 9 }, () =>
    call({
      method: 'PUT',
      url: '/player-profile',
      headers: bearer,
      payload: { userId: player.userId, avatarId: null, frameId: null, badges: null, customData: { level: 3 } },
    }),
  )
  // Compat mode without a session: the ban is read from memory, and the save's own statement decides
  // whether the player exists (contract §1.2, revision 4).
  await expectStatements(t, ctx, dialect, 'cloud save', { sqlite: 1, mysql: 1, postgres: 1 }, () =>
    call({ method: 'POST', url: '/cloud-save/save', payload: { userId: player.userId, saveData: 'x'.repeat(2048) } }),
  )
  await expectStatements(t, ctx, dialect, 'cloud save over a version', { sqlite: 1, mysql: 1, postgres: 1 }, () =>
    call({
      method: 'POST',
      url: '/cloud-save/save',
      payload: { userId: player.userId, saveData: 'y', expectedVersion: 1 },
    }),
  )
  await expectStatements(t, ctx, dialect, 'cloud load', { sqlite: 1, mysql: 1, postgres: 1 }, () =>
    call({ method: 'POST', url: '/cloud-save/load', payload: { userId: player.userId } }),
  )
  await expectStatements(t, ctx, dialect, 'user log', { sqlite: 1, mysql: 1, postgres: 1 }, () =>
    call({ method: 'POST', url: '/user-logs/create', payload: { userId: player.userId, message: 'm', type: 'INFO' } }),
  )
  // A transaction: the row, then the webhook endpoints for `feedback.submitted` (the player's name is
  // read only when one of them hears it: none does here).
  await expectStatements(t, ctx, dialect, 'feedback', { sqlite: 4, mysql: 4, postgres: 4 }, () =>
    call({
      method: 'POST',
      url: '/user-feedback/submit',
      payload: { userId: player.userId, title: 't', message: 'm' },
    }),
  )
  await expectStatements(t, ctx, dialect, 'remote config', { sqlite: 0, mysql: 0, postgres: 0 }, () =>
    call({ method: 'GET', url: '/remote-config/all' }),
  )
  await expectStatements(t, ctx, dialect, 'sign-in', { sqlite: 2, mysql: 2, postgres: 2 }, () =>
    call({
      method: 'POST',
      url: '/user-management/signin',
      payload: { type: 'ANONYMOUS', anonymousToken: player.anonymousToken },
    }),
  )
  await expectStatements(t, ctx, dialect, 'check-auth (bearer)', { sqlite: 1, mysql: 1, postgres: 1 }, () =>
    call({ method: 'POST', url: '/user-management/check-auth', headers: bearer, payload: { userId: player.userId } }),
  )
  const email = { type: 'EMAIL', email: `${dialect}-statements@example.org`, password: 'correct horse battery' }
  t.equal((await call({ method: 'POST', url: '/user-management/signup', payload: email })).statusCode, 201)
  await expectStatements(t, ctx, dialect, 'e-mail sign-in', { sqlite: 8, mysql: 8, postgres: 8 }, () =>
    call({ method: 'POST', url: '/user-management/signin', payload: email }),
  )
  // A code that grants a locked badge: the redemption, its count and the unlock in one transaction.
  await createCosmetic(ctx, 'statements-badge', 'badge', true)
  await createGiftCode(ctx, { code: 'STATEMENTS-1', grants: ['statements-badge'] })
  await expectStatements(t, ctx, dialect, 'gift-code redeem', { sqlite: 12, mysql: 12, postgres: 12 }, () =>
    redeemCode(ctx, player, 'STATEMENTS-1'),
  )
  // A validated run on the default board: the start, then the submit that consumes the ticket and
  // writes an improving score (contract §5.3).
  const started = await expectStatements(
    t,
    ctx,
    dialect,
    'validated run start',
    { sqlite: 4, mysql: 4, postgres: 4 },
    () => startRun(ctx, player, DEFAULT_BOARD),
  )
  ctx.clock.advance(30_000)
  await expectStatements(t, ctx, dialect, 'validated run submit', { sqlite: 15, mysql: 16, postgres: 15 }, () =>
    submitRun(ctx, player, (JSON.parse(started.body) as { ticket: string }).ticket, 300),
  )
  // A board whose rules limit the runs per hour and the open runs: both counts in one statement, under
  // the player's lock row (a transaction).
  await createBoard(ctx, 'statements-limited')
  await putRules(ctx, 'statements-limited', { maxRunsPerHour: 10, maxOpenRuns: 3 })
  await expectStatements(t, ctx, dialect, 'validated run start with limits', { sqlite: 8, mysql: 8, postgres: 8 }, () =>
    startRun(ctx, player, 'statements-limited'),
  )
})
