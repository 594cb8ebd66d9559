import t from 'tap'
import { sql } from 'kysely'
import { createDb } from '../../db/index.js'
import { anyEngine } from '../../db/dialect.js'
import { retryOnConflict } from '../../db/transaction.js'
import { createConnection } from 'mysql2/promise'
import pg from 'pg'
import { buildTestApp, freshDatabase, serverUrl, testConfig } from '../helpers/app.js'
import { bearer, createUser } from '../fixtures/users.js'
import { mysqlConnection } from '../../bench/mysql.js'
import { postgresConnection } from '../../bench/postgres.js'

// One DB_QUERY_TIMEOUT_MS for a caller's wait for a connection and its statements, for a
// transaction's attempts after a deadlock (db/pool-bounds.ts: ConnectionBound, withinDeadline), and
// for a request whose session read was held and whose handler is then held too
// (platform/security/sessions.ts), on the server engines (SQLite has no pool).

const BOUND_MS = 1000
/** The sweep is a twentieth of the bound late at most; the rest is room for a loaded machine. */
const LATE_MS = 300

for (const engine of ['mysql', 'postgres'] as const) {
  const skip = serverUrl(engine) ? undefined : `no ${engine} server (TEST_${engine.toUpperCase()}_URL)`
  const sleepFor = (seconds: number) =>
    engine === 'mysql' ? sql`select sleep(${seconds}) as slept` : sql`select pg_sleep(${seconds}) as slept`

  t.test(`${engine}: the time waited for a connection is taken off its statement's bound`, { skip }, async (t) => {
    const env = await freshDatabase(t, engine)
    const db = createDb({ ...testConfig(env), DB_POOL_SIZE: 1, DB_QUERY_TIMEOUT_MS: BOUND_MS })
    t.teardown(() => db.destroy())
    await sleepFor(0).execute(db)

    let waitedMs = 0
    const started = performance.now()
    // The first holds the one connection 600 ms; the second waits for it, then asks for 800 ms more.
    const [holder, waiter] = await Promise.allSettled([
      sleepFor(0.6).execute(db),
      sleepFor(0.8)
        .execute(db)
        .finally(() => (waitedMs = performance.now() - started)),
    ])
    t.equal(holder.status, 'fulfilled', 'the statement that had the connection ran')
    t.equal(waiter.status, 'rejected', 'the one that waited had only the rest of the bound for its statement')
    t.ok(anyEngine((waiter as PromiseRejectedResult).reason, 'timeout'), 'a timeout, answered 503')
    t.ok(waitedMs < BOUND_MS + LATE_MS, `answered ${waitedMs.toFixed(0)} ms after it asked (bound ${BOUND_MS} ms)`)

    const alone = performance.now()
    await sleepFor(0.8).execute(db)
    t.ok(performance.now() - alone >= 800, 'a statement that did not wait keeps the whole bound')
  })

  t.test(`${engine}: a retry after a deadlock has what is left of the bound`, { skip }, async (t) => {
    const env = await freshDatabase(t, engine)
    const db = createDb({ ...testConfig(env), DB_QUERY_TIMEOUT_MS: BOUND_MS })
    t.teardown(() => db.destroy())
    await sleepFor(0).execute(db)

    let attempts = 0
    const started = performance.now()
    const outcome = await retryOnConflict(async () => {
      if (++attempts === 1) {
        // The first attempt is chosen as a deadlock's victim 600 ms in; the retry then asks for 800 ms.
        await sleepFor(0.6).execute(db)
        throw Object.assign(new Error('Deadlock found when trying to get lock'), { errno: 1213, code: '40P01' })
      }
      return sleepFor(0.8).execute(db)
    }, BOUND_MS).then(
      () => null,
      (error: unknown) => error,
    )
    const ms = performance.now() - started
    t.equal(attempts, 2, 'tried again once')
    t.ok(anyEngine(outcome, 'timeout'), 'the retry timed out (503) rather than taking a bound of its own')
    t.ok(ms < BOUND_MS + LATE_MS, `answered ${ms.toFixed(0)} ms after the first attempt (bound ${BOUND_MS} ms)`)

    const alone = performance.now()
    await sleepFor(0.8).execute(db)
    t.ok(performance.now() - alone >= 800, 'work outside the retry keeps the whole bound')
  })

  t.test(
    `${engine}: a request whose session read was held has the rest of the bound for its handler`,
    { skip },
    async (t) => {
      const ctx = await buildTestApp(t, engine, {
        env: { DB_POOL_SIZE: '1', DB_QUERY_TIMEOUT_MS: String(BOUND_MS) },
        bystander: false,
      })
      const db = ctx.app.games.default.db
      const user = await createUser(ctx)
      const save = () =>
        ctx.call({
          method: 'POST',
          url: '/cloud-save/save',
          headers: bearer(user),
          payload: { userId: user.userId, data: 'v' },
        })
      t.equal((await save()).statusCode, 200, 'a first save')

      // A transaction of another client holds the save's row: the handler's write waits on it.
      const url = serverUrl(engine)!
      const rowLock = 'select data from cloud_saves where user_id = ? for update'
      let unlock: () => Promise<unknown>
      if (engine === 'mysql') {
        const other = await createConnection({ ...mysqlConnection(url), database: ctx.env.DB_NAME })
        await other.query('begin')
        await other.query(rowLock, [user.userId])
        unlock = () => other.query('rollback').then(() => other.end())
      } else {
        const other = new pg.Client({ ...postgresConnection(url), database: ctx.env.DB_NAME })
        await other.connect()
        await other.query('begin')
        await other.query(rowLock.replace('?', '$1'), [user.userId])
        unlock = () => other.query('rollback').then(() => other.end())
      }
      t.teardown(() => unlock().catch(() => undefined))

      // The one connection is held 600 ms: the save's session read waits for it, then its write is held.
      const started = performance.now()
      const holder = sleepFor(0.6).execute(db)
      const answer = await save()
      const ms = performance.now() - started
      await holder
      t.equal(answer.statusCode, 503, `held past the bound: 503 (${answer.body})`)
      t.ok(ms >= 600, `the session read waited for the connection (${ms.toFixed(0)} ms)`)
      t.ok(
        ms < BOUND_MS + LATE_MS,
        `answered ${ms.toFixed(0)} ms after it came (bound ${BOUND_MS} ms), not a bound per part`,
      )

      await unlock()
      const alone = performance.now()
      t.equal((await save()).statusCode, 200, 'the row free again: saved')
      t.ok(performance.now() - alone < BOUND_MS, 'a request that was not held is not bounded by the earlier one')
    },
  )
}
