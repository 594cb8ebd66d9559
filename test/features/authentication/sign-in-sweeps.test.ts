import { createHash, randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { createConnection } from 'mysql2/promise'
import t from 'tap'
import { buildTestApp, eachDialect, freshDatabase, TestClock, type TestApp } from '../../helpers/app.js'
import { createEmailUser, type EmailUser } from '../../fixtures/email.js'
import { JobRunner } from '../../../platform/jobs/runner.js'

/**
 * Expired sign-in rows are deleted by a background job, never inside a sign-in: the job runs once
 * per period however many instances share the database, and a sign-in neither waits on nor
 * deadlocks with the rows of other addresses.
 */
const SIGNIN = '/user-management/signin'
const MINUTE = 60_000
const SWEEP = 'authentication.sign-in-sweep'
const loginKey = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('hex')
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')
const otherKey = (i: number) => sha256(`gone-${i}`)

/** Failures and locks earlier windows left behind: for `keys`, and for many addresses never tried again. */
async function seedExpired(ctx: TestApp, keys: string[], now: number) {
  const old = now - 20 * MINUTE
  const failures = []
  const locks = []
  for (let i = 0; i < 600; i++) {
    const keyHash = keys[i] ?? otherKey(i)
    locks.push({ key_hash: keyHash, locked_until: i % 2 === 0 ? 0 : old + 15 * MINUTE })
    for (let j = 0; j < 10; j++)
      failures.push({ id: randomUUID(), key_hash: keyHash, failed_at: old + j, in_flight: 0 as const })
  }
  for (let i = 0; i < failures.length; i += 500) {
    await ctx.app.db
      .insertInto('login_failures')
      .values(failures.slice(i, i + 500))
      .execute()
  }
  await ctx.app.db.insertInto('login_locks').values(locks).execute()
}

const count = async (ctx: TestApp, table: 'login_failures' | 'login_locks' | 'google_codes') =>
  Number(
    (
      await ctx.app.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  )

eachDialect(t, async (t, dialect) => {
  t.test('sign-ins right after a start, with expired rows stored and one held elsewhere: no 5xx', async (t) => {
    const dbEnv = await freshDatabase(t, dialect)
    const clock = new TestClock()
    const env = { DB_QUERY_TIMEOUT_MS: '1500' }
    const seeding = await buildTestApp(t, dialect, { dbEnv, clock, env })
    const users: EmailUser[] = []
    for (let i = 0; i < 3; i++) users.push(await createEmailUser(seeding))
    await seedExpired(
      seeding,
      users.map((u) => loginKey(u.email)),
      clock.now(),
    )
    await seeding.app.close()

    // On MySQL another connection holds the ended lock of an address nobody here signs in with, as
    // a sign-in of that address on another instance does mid-transaction, for longer than the query
    // bound: a sweep inside a sign-in waited for it (or deadlocked with it) and failed the request.
    let release = async () => {}
    if (dialect === 'mysql') {
      const holder = await createConnection({
        host: dbEnv.DB_HOST,
        port: Number(dbEnv.DB_PORT),
        user: dbEnv.DB_USER,
        password: dbEnv.DB_PASS,
        database: dbEnv.DB_NAME,
      })
      t.teardown(() => holder.end())
      await holder.query('start transaction')
      await holder.query('select * from login_locks where key_hash = ? for update', [otherKey(300)])
      // A new failure, as that sign-in records one: a locking read of another address's failures would
      // also lock the index gap before them, which a sign-in of the address sorting just before it
      // writes into (one run in a few hundred hit that).
      await holder.query('insert into login_failures (id, key_hash, failed_at) values (?, ?, ?)', [
        randomUUID(),
        otherKey(301),
        clock.now(),
      ])
      release = async () => {
        await sleep(2500)
        await holder.query('commit')
      }
    }
    const ctx = await buildTestApp(t, dialect, { dbEnv, clock, env })
    const attempts = users.flatMap((user) => [
      { type: 'EMAIL', email: user.email, password: 'wrong-password' },
      { type: 'EMAIL', email: user.email, password: user.password },
    ])
    const [responses] = await Promise.all([
      Promise.all(attempts.map((payload) => ctx.call({ method: 'POST', url: SIGNIN, payload }))),
      release(),
    ])
    t.same(
      responses.map((r) => r.statusCode),
      attempts.map((a) => (a.password === 'wrong-password' ? 401 : 200)),
      'every wrong password 401, every right one 200, though each address has 10 old failures',
    )
  })

  t.test('the sweep job deletes expired rows, keeps live ones, and runs once per period', async (t) => {
    const ctx = await buildTestApp(t, dialect)
    const { clock } = ctx
    // Other features' jobs run beside it; this test follows the sign-in sweep.
    const runDue = async () => (await ctx.app.jobs.runDue()).filter((name) => name === SWEEP)
    t.ok(ctx.app.jobs.names.includes(SWEEP), 'the authentication plugin added its job')
    await seedExpired(ctx, [], clock.now())
    const now = clock.now()
    await ctx.app.db
      .insertInto('login_failures')
      .values({ id: randomUUID(), key_hash: otherKey(1), failed_at: now - MINUTE, in_flight: 0 })
      .execute()
    await ctx.app.db
      .insertInto('login_locks')
      .values({ key_hash: 'live-lock', locked_until: now + 10 * MINUTE })
      .execute()
    await ctx.app.db
      .insertInto('google_codes')
      .values([
        // Hashes, as the code stores: the column is char(64), which PostgreSQL pads a shorter text to.
        { code_hash: sha256('expired'), kind: 'token', payload: 'x', expires_at: now - 1 },
        { code_hash: sha256('live'), kind: 'token', payload: 'y', expires_at: now + MINUTE },
      ])
      .execute()

    t.same(await runDue(), [SWEEP], 'due at once: its row was never claimed')
    t.equal(await count(ctx, 'login_failures'), 1, 'only the failure inside the window is left')
    t.equal(await count(ctx, 'login_locks'), 1, 'only the lock still in force is left')
    const codes = await ctx.app.db.selectFrom('google_codes').select('code_hash').execute()
    t.same(
      codes.map((c) => c.code_hash),
      [sha256('live')],
      'the expired Google code is gone',
    )

    await seedExpired(ctx, [], clock.now())
    t.same(await runDue(), [], 'not again within its period')
    t.equal(await count(ctx, 'login_locks'), 601)
    clock.advance(5 * MINUTE)
    t.same(await runDue(), [SWEEP], 'again once the period has passed')
    t.equal(await count(ctx, 'login_locks'), 1)
  })

  t.test('two instances on one database: the job runs once per period', async (t) => {
    const dbEnv = await freshDatabase(t, dialect)
    const clock = new TestClock()
    const a = await buildTestApp(t, dialect, { dbEnv, clock })
    const b = await buildTestApp(t, dialect, { dbEnv, clock })
    await a.app.ready()
    await b.app.ready()
    t.ok(a.app.jobs.running && b.app.jobs.running, 'started with the apps')
    const runs: string[][] = []
    for (let period = 0; period < 4; period++) {
      for (let look = 0; look < 3; look++) {
        const [ranA, ranB] = await Promise.all([a.app.jobs.runDue(), b.app.jobs.runDue()])
        runs.push([...ranA.map((n) => `a:${n}`), ...ranB.map((n) => `b:${n}`)])
        clock.advance(MINUTE)
      }
      clock.advance(2 * MINUTE)
    }
    // The default game's runs (another game's, such as the bystander's, are named `<game>/<job>`).
    const sweeps = runs.map((ran) => ran.filter((r) => r.slice(2) === SWEEP))
    t.same(
      sweeps.map((ran) => ran.length),
      [1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0],
      'one run per 5-minute period, by one of the two',
    )
    const row = await a.app.db.selectFrom('job_runs').selectAll().where('name', '=', SWEEP).executeTakeFirstOrThrow()
    t.ok([a.app.jobs.id as string, b.app.jobs.id].includes(row.claimed_by!), 'claimed by one of them')
    await a.app.close()
    t.notOk(a.app.jobs.running, 'stopped when its app closed')
  })

  t.test('a failing job is logged and runs again in a later period; the others still run', async (t) => {
    const ctx = await buildTestApp(t, dialect)
    const logged: Array<{ details: object; message: string }> = []
    const runner = new JobRunner(() => [ctx.app.games.default], ctx.clock, {
      error: (details, message) => logged.push({ details, message }),
    })
    let calls = 0
    runner.add({
      name: 'test.failing',
      everyMs: MINUTE,
      run: async () => {
        calls++
        throw new Error('boom')
      },
    })
    runner.add({ name: 'test.fine', everyMs: MINUTE, run: async () => {} })
    t.same(await runner.runDue(), ['test.fine'])
    t.equal(logged.length, 1)
    t.match(logged[0], { details: { job: 'test.failing' }, message: /background job failed/ })
    t.same(await runner.runDue(), [], 'the failed run used up its period')
    ctx.clock.advance(MINUTE)
    t.same(await runner.runDue(), ['test.fine'])
    t.equal(calls, 2, 'tried again in the next period')
    t.throws(() => runner.add({ name: 'test.fine', everyMs: 1, run: async () => {} }), /already added/)
  })
})
