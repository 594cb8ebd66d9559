import t, { type Test } from 'tap'
import { sql } from 'kysely'
import { createDb, poolUsage } from '../../db/index.js'
import { anyEngine, isDatabaseUnavailable } from '../../db/dialect.js'
import { freshDatabase, serverUrl, testConfig } from '../helpers/app.js'
import { pausableProxy, timed } from '../helpers/faults.js'

/**
 * The PostgreSQL driver's guarantees (db/postgres-driver.ts), as test/db/mysql-driver.test.ts holds the
 * MySQL one to its bounds: every wait on the server ends within DB_QUERY_TIMEOUT_MS (the connect, the
 * wait for a pool client, each statement), a client given up on is never handed out again, and 64-bit
 * integers come back as exact numbers or not at all.
 */
const BOUND_MS = 500
// Room on top of the bound for a loaded test machine.
const MARGIN_MS = 1000

const skip = serverUrl('postgres') ? false : 'TEST_POSTGRES_URL is not set: no PostgreSQL server to test on'

async function open(t: Test, overrides: Record<string, string> = {}) {
  const env = await freshDatabase(t, 'postgres')
  const proxy = await pausableProxy(t, { host: env.DB_HOST!, port: Number(env.DB_PORT) })
  const db = createDb(
    testConfig({
      ...env,
      DB_HOST: proxy.host,
      DB_PORT: String(proxy.port),
      DB_QUERY_TIMEOUT_MS: String(BOUND_MS),
      ...overrides,
    }),
  )
  // Resumed before the pool ends, so that its clients can say goodbye.
  t.teardown(async () => {
    proxy.resume()
    await db.destroy()
  })
  return { db, proxy }
}

const isTimeout = (error: unknown) => anyEngine(error, 'timeout')

t.test(
  'a statement the server does not answer fails within the bound; its client is not handed out again',
  { skip },
  async (t) => {
    const { db, proxy } = await open(t, { DB_POOL_SIZE: '2' })
    t.same((await sql<{ one: number }>`select 1 as one`.execute(db)).rows, [{ one: 1 }])
    proxy.pause()
    const frozen = await timed(() =>
      sql`select 1`.execute(db).then(
        () => null,
        (error: unknown) => error,
      ),
    )
    t.ok(isTimeout(frozen.value), `a timeout: ${String(frozen.value)}`)
    t.ok(isDatabaseUnavailable(frozen.value), 'which the API answers with 503')
    t.ok(frozen.ms >= BOUND_MS - 50 && frozen.ms < BOUND_MS + MARGIN_MS, `after ${frozen.ms.toFixed(0)} ms`)
    proxy.resume()
    // Every client the pool hands out now answers: the one that timed out was dropped, not given back
    // with a reply still due on its socket.
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => sql<{ n: number }>`select ${i}::int as n`.execute(db)),
    )
    t.same(
      answers.map((r) => r.rows[0]!.n),
      [0, 1, 2, 3, 4, 5],
      'each statement gets its own answer',
    )
    t.same(poolUsage(db), { inUse: 0, waiting: 0, size: 2 }, 'no client is counted as held')
  },
)

t.test('a statement the server runs too long is stopped within the bound', { skip }, async (t) => {
  const { db } = await open(t)
  const slow = await timed(() =>
    sql`select pg_sleep(5)`.execute(db).then(
      () => null,
      (error: unknown) => error,
    ),
  )
  t.ok(isTimeout(slow.value), `a timeout: ${String(slow.value)}`)
  t.ok(slow.ms < BOUND_MS + MARGIN_MS, `after ${slow.ms.toFixed(0)} ms`)
  t.same((await sql<{ one: number }>`select 1 as one`.execute(db)).rows, [{ one: 1 }], 'the next statement runs')
})

t.test('the wait for a pool client and the connect to a silent server are bounded', { skip }, async (t) => {
  const { db, proxy } = await open(t, { DB_POOL_SIZE: '1' })
  let release!: () => void
  const held = db.connection().execute(async (connection) => {
    await sql`select 1`.execute(connection)
    await new Promise<void>((resolve) => (release = resolve))
  })
  while (!release) await new Promise((resolve) => setTimeout(resolve, 10))
  const waited = await timed(() =>
    sql`select 1`.execute(db).then(
      () => null,
      (error: unknown) => error,
    ),
  )
  t.ok(isTimeout(waited.value) && isDatabaseUnavailable(waited.value), `no client came free: ${String(waited.value)}`)
  t.ok(waited.ms >= BOUND_MS - 50 && waited.ms < BOUND_MS + MARGIN_MS, `after ${waited.ms.toFixed(0)} ms`)
  release()
  await held
  t.same(poolUsage(db), { inUse: 0, waiting: 0, size: 1 }, 'the caller that gave up is no longer counted')

  // A fresh pool whose first connect meets a server that accepts and never answers.
  const { db: silent, proxy: silentProxy } = await open(t)
  silentProxy.pause()
  const connect = await timed(() =>
    sql`select 1`.execute(silent).then(
      () => null,
      (error: unknown) => error,
    ),
  )
  t.ok(isDatabaseUnavailable(connect.value), `the connect gave up: ${String(connect.value)}`)
  t.ok(connect.ms < BOUND_MS + MARGIN_MS, `after ${connect.ms.toFixed(0)} ms`)
  silentProxy.resume()
  t.same((await sql<{ one: number }>`select 1 as one`.execute(silent)).rows, [{ one: 1 }], 'then it connects')
  proxy.resume()
})

t.test('bigint and numeric come back as exact numbers, or fail rather than round', { skip }, async (t) => {
  const { db } = await open(t)
  const { rows } = await sql<{ big: number; total: number; count: number }>`
    select 9007199254740991::bigint as big, sum(x)::numeric as total, count(*) as count
    from (values (4000000000::bigint), (5000000000::bigint)) as v(x)`.execute(db)
  t.same(rows, [{ big: Number.MAX_SAFE_INTEGER, total: 9_000_000_000, count: 2 }])
  t.equal(typeof rows[0]!.big, 'number')
  await t.rejects(
    sql`select 9007199254740993::bigint as past`.execute(db),
    /past the exact range of a number/,
    'a value a number cannot hold exactly is refused',
  )
})
