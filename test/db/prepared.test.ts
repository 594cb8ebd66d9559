import t from 'tap'
import SQLite from 'better-sqlite3'
import { sql } from 'kysely'
import { randomUUID } from 'node:crypto'
import { createDb, poolUsage, type DbFailure } from '../../db/index.js'
import type { Db } from '../../db/types.js'
import { migrateToLatest } from '../../db/migrate.js'
import { MIGRATIONS } from '../../app.js'
import { prepared, preparedCounterUpsert, preparedFamily } from '../../db/prepared.js'
import { inTransaction } from '../../db/transaction.js'
import { eachDialect, freshDatabase, testConfig, type Dialect } from '../helpers/app.js'

/**
 * The prepared-query layer under the hot paths: the same rows as Kysely builds, values filled in per
 * call, SQLite's direct path kept out of open transactions, and LIMIT written into the SQL on SQLite.
 */
async function database(t: Parameters<Parameters<typeof eachDialect>[1]>[0], dialect: Dialect): Promise<Db> {
  const db = createDb(testConfig(await freshDatabase(t, dialect)))
  t.teardown(() => db.destroy())
  await migrateToLatest(db, MIGRATIONS)
  return db
}

const addUser = (db: Db, id: string, username: string) =>
  db
    .insertInto('users')
    .values({ id, username, is_anonymous: 1, is_verified: 0, created_at: 1, updated_at: 1 })
    .execute()

const nameById = prepared((db, p: { id: string }) =>
  db.selectFrom('users').select(['id', 'username']).where('id', '=', p.id),
)

const insertUser = prepared((db, p: { id: string; username: string }) =>
  db
    .insertInto('users')
    .values({ id: p.id, username: p.username, is_anonymous: 1, is_verified: 0, created_at: 1, updated_at: 1 }),
)

const firstNames = preparedFamily(
  (limit: number) => (db, p: { after: string }) =>
    db.selectFrom('users').select('username').where('username', '>', p.after).orderBy('username').limit(limit),
)

eachDialect(t, async (t, dialect) => {
  t.test('a prepared query fills in its values on every call', async (t) => {
    const db = await database(t, dialect)
    const [a, b] = [randomUUID(), randomUUID()]
    await addUser(db, a, 'Ada')
    await addUser(db, b, 'Bo')
    t.same(await nameById.first(db, { id: a }), { id: a, username: 'Ada' })
    t.same(await nameById.first(db, { id: b }), { id: b, username: 'Bo' })
    t.equal(await nameById.first(db, { id: randomUUID() }), undefined)
    t.same(await nameById.all(db, { id: b }), [{ id: b, username: 'Bo' }])
  })

  t.test('a family keeps one shape per key (here the LIMIT), each with its own values', async (t) => {
    const db = await database(t, dialect)
    for (const name of ['Ann', 'Ben', 'Cid', 'Dee']) await addUser(db, randomUUID(), name)
    t.same(
      (await firstNames(2).all(db, { after: 'A' })).map((r) => r.username),
      ['Ann', 'Ben'],
    )
    t.same(
      (await firstNames(3).all(db, { after: 'Ann' })).map((r) => r.username),
      ['Ben', 'Cid', 'Dee'],
    )
    t.same(
      (await firstNames(2).all(db, { after: 'Cid' })).map((r) => r.username),
      ['Dee'],
    )
    t.equal(firstNames(2), firstNames(2), 'the same member is reused')
  })

  t.test(
    'inside a transaction a prepared query sees the transaction; outside it never sees uncommitted rows',
    async (t) => {
      const db = await database(t, dialect)
      const inside = randomUUID()
      const rolledBack = randomUUID()
      let outsideRead: Promise<unknown> | undefined
      const order: string[] = []
      await db.transaction().execute(async (trx) => {
        await addUser(trx, inside, 'Inside')
        t.same(
          await nameById.first(trx, { id: inside }),
          { id: inside, username: 'Inside' },
          'the transaction reads its own write',
        )
        // Issued while the transaction is open: it must wait for the commit (SQLite) or read the
        // last committed state (MySQL, PostgreSQL), and in neither case see the row before the commit.
        outsideRead = nameById.first(db, { id: inside }).then((row) => {
          order.push('outside read')
          return row
        })
        await new Promise((resolve) => setTimeout(resolve, 20))
        order.push('commit')
      })
      const seen = await outsideRead
      if (dialect === 'sqlite') {
        t.same(order, ['commit', 'outside read'], 'SQLite: the read waited for the transaction')
        t.same(seen, { id: inside, username: 'Inside' })
      } else {
        t.equal(seen, undefined, `${dialect}: the read saw the committed state, without the row`)
      }
      await t.rejects(
        db.transaction().execute(async (trx) => {
          await addUser(trx, rolledBack, 'Gone')
          throw new Error('roll back')
        }),
      )
      t.equal(await nameById.first(db, { id: rolledBack }), undefined, 'a rolled-back row is never read')
    },
  )

  t.test(
    'in a transaction of inTransaction (run on its connection directly) prepared writes commit or roll back with it',
    async (t) => {
      const db = await database(t, dialect)
      const kept = randomUUID()
      const rolledBack = randomUUID()
      let outsideRead: Promise<unknown> | undefined
      const order: string[] = []
      await inTransaction(db, async (trx) => {
        await insertUser.execute(trx, { id: kept, username: 'Kept' })
        t.same(await nameById.first(trx, { id: kept }), { id: kept, username: 'Kept' }, 'read in the transaction')
        outsideRead = nameById.first(db, { id: kept }).then((row) => {
          order.push('outside read')
          return row
        })
        await new Promise((resolve) => setTimeout(resolve, 20))
        order.push('commit')
      })
      const seen = await outsideRead
      if (dialect === 'sqlite') {
        t.same(order, ['commit', 'outside read'], 'SQLite: the plain read waited for the transaction')
        t.same(seen, { id: kept, username: 'Kept' })
      } else {
        t.equal(seen, undefined, `${dialect}: the read saw the committed state, without the row`)
      }
      await t.rejects(
        inTransaction(db, async (trx) => {
          await insertUser.execute(trx, { id: rolledBack, username: 'Gone' })
          t.ok(await nameById.first(trx, { id: rolledBack }), 'written in the transaction')
          throw new Error('roll back')
        }),
      )
      t.equal(await nameById.first(db, { id: rolledBack }), undefined, 'a rolled-back prepared write is gone')
      t.same(await nameById.first(db, { id: kept }), { id: kept, username: 'Kept' }, 'the committed one stays')
    },
  )

  t.test('a counter upsert answers 1 for a new row and one more on each write after it', async (t) => {
    const db = await database(t, dialect)
    const userId = randomUUID()
    await addUser(db, userId, 'Saver')
    const save = preparedCounterUpsert<{
      user_id: string
      data: Buffer
      is_binary: 0 | 1
      size_bytes: number
      updated_at: number
      version: number
      created_at: number
    }>('cloud_saves', ['user_id', 'data', 'is_binary', 'size_bytes', 'updated_at', 'version', 'created_at'], {
      key: 'user_id',
      counter: 'version',
      keep: ['created_at'],
    })
    const row = (n: number) => ({
      user_id: userId,
      data: Buffer.from(`v${n}`),
      is_binary: 0 as const,
      size_bytes: 2,
      updated_at: n,
      version: 1,
      created_at: n,
    })
    t.equal(await save(db, row(1)), 1)
    t.equal(await save(db, row(2)), 2)
    t.same(
      await Promise.all([3, 4, 5].map((n) => save(db, row(n)))).then((v) => v.sort()),
      [3, 4, 5],
      'concurrent writes each get their own version',
    )
    const stored = await db
      .selectFrom('cloud_saves')
      .select(['version', 'created_at'])
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow()
    t.same(stored, { version: 5, created_at: 1 }, 'created_at is kept from the first write')
  })
})

t.test('SQLite: a whole-number LIMIT is written into the SQL; other values stay bound', async (t) => {
  const db = createDb(testConfig(await freshDatabase(t, 'sqlite')))
  t.teardown(() => db.destroy())
  const query = db.selectFrom('users').select('id').where('username', '=', 'x').limit(25).offset(50).compile()
  t.match(query.sql, /limit 25 offset \?$/)
  t.same(query.parameters, ['x', 50])
})

t.test(
  'SQLite rows: the objects better-sqlite3 would make, also after another process changes the schema',
  async (t) => {
    const dbEnv = await freshDatabase(t, 'sqlite')
    const db = createDb(testConfig(dbEnv))
    t.teardown(() => db.destroy())
    await sql`create table shapes (a integer, b text, c blob)`.execute(db)
    await sql`insert into shapes values (1, 'one', x'01'), (2, 'two', null)`.execute(db)
    const reference = new SQLite(dbEnv.DB_PATH!)
    t.teardown(() => reference.close())
    const queries = [
      'select * from shapes order by a',
      'select b, a from shapes order by a',
      'select a as "x y", a + 1 as "with ""quotes""", b as "Ünïcode" from shapes order by a',
      'select a as dup, b as dup from shapes order by a',
      'select a as "__proto__", b from shapes order by a',
      'select count(*) as n from shapes where a > 5',
      'select * from shapes where a > 5',
    ]
    for (const text of queries) {
      for (let run = 0; run < 2; run++) {
        const rows = (await sql.raw(text).execute(db)).rows
        // A column named `__proto__` is never a key of ours (it would set the prototype). better-sqlite3
        // leaves it out too when built for Node 20, and keeps it as an own property for Node 24.
        const expected = (reference.prepare(text).all() as object[]).map((row) =>
          Object.fromEntries(Object.entries(row).filter(([key]) => key !== '__proto__')),
        )
        t.same(rows, expected, `${text} (run ${run + 1})`)
        t.same(
          rows.map((row) => Object.keys(row as object)),
          expected.map((row) => Object.keys(row as object)),
        )
        t.ok(
          rows.every((row) => Object.getPrototypeOf(row) === Object.prototype),
          'plain objects',
        )
      }
    }
    // Another connection (as another process would) adds a column: the cached `select *` now reads four.
    reference.exec(`alter table shapes add column d integer default 7`)
    t.same((await sql.raw('select * from shapes order by a').execute(db)).rows, [
      { a: 1, b: 'one', c: Buffer.from([1]), d: 7 },
      { a: 2, b: 'two', c: null, d: 7 },
    ])
    // This connection's own schema changes are seen at once too, also one that keeps the width.
    await sql`alter table shapes rename column b to name`.execute(db)
    t.same((await sql.raw('select * from shapes order by a').execute(db)).rows, [
      { a: 1, name: 'one', c: Buffer.from([1]), d: 7 },
      { a: 2, name: 'two', c: null, d: 7 },
    ])
    await sql`alter table shapes drop column d`.execute(db)
    t.same((await sql.raw('select * from shapes order by a').execute(db)).rows, [
      { a: 1, name: 'one', c: Buffer.from([1]) },
      { a: 2, name: 'two', c: null },
    ])
  },
)

const sleepFor = prepared((db, p: { seconds: number }) => ({
  compile: () => sql<{ slept: number }>`select sleep(${p.seconds}) as slept`.compile(db),
}))

t.test(
  'MySQL: a statement not answered within DB_QUERY_TIMEOUT_MS fails with the bound, is counted, and its connection is replaced',
  { skip: process.env.TEST_MYSQL_URL ? false : 'TEST_MYSQL_URL is not set' },
  async (t) => {
    const seen: DbFailure[] = []
    const config = { ...testConfig(await freshDatabase(t, 'mysql')), DB_POOL_SIZE: 1, DB_QUERY_TIMEOUT_MS: 300 }
    const db = createDb(config, { queryFailed: (kind) => seen.push(kind) })
    t.teardown(() => db.destroy())
    await migrateToLatest(db, MIGRATIONS)
    const id = randomUUID()
    await insertUser.execute(db, { id, username: 'Still here' })

    const cases: Array<[string, () => Promise<unknown>]> = [
      ['a Kysely query', () => sql`select sleep(3)`.execute(db)],
      ['a prepared query on its own connection', () => sleepFor.first(db, { seconds: 3 })],
      ['a prepared query in a transaction', () => inTransaction(db, (trx) => sleepFor.first(trx, { seconds: 3 }))],
    ]
    for (const [name, slow] of cases) {
      const started = performance.now()
      await t.rejects(slow(), { code: 'PROTOCOL_SEQUENCE_TIMEOUT' }, name)
      const ms = performance.now() - started
      t.ok(ms >= 295 && ms < 800, `${name}: failed after ${ms.toFixed(0)} ms (bound 300 ms)`)
      // The pool holds one connection: the next statements run only if the hung one was replaced.
      t.same(await nameById.first(db, { id }), { id, username: 'Still here' }, `${name}: the pool answers again`)
      t.same(poolUsage(db), { inUse: 0, waiting: 0, size: 1 }, `${name}: every connection given back`)
    }
    t.same(seen, ['query_timeout', 'query_timeout', 'query_timeout'])
    t.equal((await sleepFor.first(db, { seconds: 0.05 }))?.slept, 0, 'a statement inside the bound answers')
  },
)

t.test(
  'MySQL: destroying a database that ran only prepared queries (which skip Kysely) ends its pool',
  { skip: process.env.TEST_MYSQL_URL ? false : 'TEST_MYSQL_URL is not set' },
  async (t) => {
    const config = testConfig(await freshDatabase(t, 'mysql'))
    const setup = createDb(config)
    await migrateToLatest(setup, MIGRATIONS)
    await setup.destroy()
    const db = createDb(config)
    t.equal(await nameById.first(db, { id: randomUUID() }), undefined)
    await db.destroy()
    await t.rejects(nameById.first(db, { id: randomUUID() }), { message: 'Pool is closed.' })
  },
)
