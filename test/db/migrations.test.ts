import t from 'tap'
import { sql } from 'kysely'
import { createDb, MIGRATION_QUERY_TIMEOUT_MS } from '../../db/index.js'
import type { Config } from '../../config.js'
import { migrateToLatest } from '../../db/migrate.js'
import { MIGRATIONS } from '../../app.js'
import type { Flag } from '../../db/types.js'
import { eachDialect, freshDatabase, testConfig } from '../helpers/app.js'

/**
 * A database handle as server.ts migrates with: MySQL's migration lock (GET_LOCK) is one per server,
 * so a run waits for every other database's migrations on it, as long as they take.
 */
const migrating = (config: Config): Config => ({ ...config, DB_QUERY_TIMEOUT_MS: MIGRATION_QUERY_TIMEOUT_MS })

eachDialect(t, async (t, dialect) => {
  t.test('two instances migrating one fresh database at once both succeed', async (t) => {
    const config = testConfig(await freshDatabase(t, dialect))
    const a = createDb(migrating(config))
    const b = createDb(migrating(config))
    t.teardown(async () => {
      await a.destroy()
      await b.destroy()
    })
    const [ranA, ranB] = await Promise.all([migrateToLatest(a, MIGRATIONS), migrateToLatest(b, MIGRATIONS)])
    t.same([...ranA, ...ranB].sort(), Object.keys(MIGRATIONS).sort(), 'each migration applied exactly once')
    t.same(await migrateToLatest(a, MIGRATIONS), [], 'a later start has nothing to do')
    const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(a)
    t.same(
      applied.rows.map((r) => r.name),
      Object.keys(MIGRATIONS),
    )
  })

  if (dialect === 'mysql') {
    t.test('tables are utf8mb4 / utf8mb4_unicode_ci, as docker-compose configures MySQL', async (t) => {
      const config = testConfig(await freshDatabase(t, dialect))
      const db = createDb(migrating(config))
      t.teardown(() => db.destroy())
      await migrateToLatest(db, MIGRATIONS)
      const tables = await sql<{ TABLE_NAME: string; TABLE_COLLATION: string }>`
        select TABLE_NAME, TABLE_COLLATION from information_schema.TABLES where TABLE_SCHEMA = database()
          and TABLE_NAME in ('users', 'sessions')`.execute(db)
      t.equal(tables.rows.length, 2)
      for (const row of tables.rows) t.equal(row.TABLE_COLLATION, 'utf8mb4_unicode_ci', row.TABLE_NAME)
      await db
        .insertInto('users')
        .values({
          id: '00000000-0000-4000-8000-000000000001',
          username: 'Emoji 🎮 名前',
          email: null,
          is_anonymous: 1,
          is_verified: 0,
          anonymous_token_hash: null,
          banned_at: null,
          ban_reason: null,
          created_at: 1,
          updated_at: 1,
        })
        .execute()
      const back = await db.selectFrom('users').select('username').executeTakeFirstOrThrow()
      t.equal(back.username, 'Emoji 🎮 名前', 'four-byte characters survive')
    })
  }

  t.test('every migration can be rolled back', async (t) => {
    const config = testConfig(await freshDatabase(t, dialect))
    const db = createDb(migrating(config))
    t.teardown(() => db.destroy())
    await migrateToLatest(db, MIGRATIONS)
    for (const name of Object.keys(MIGRATIONS).reverse()) await MIGRATIONS[name]!.down!(db)
    await sql`drop table kysely_migration`.execute(db)
    await sql`drop table kysely_migration_lock`.execute(db)
    t.same((await migrateToLatest(db, MIGRATIONS)).length, Object.keys(MIGRATIONS).length, 'and applied again')
  })

  t.test(
    "0121 carries the banned players' counter into content_versions, one higher, and drops its table",
    async (t) => {
      const config = testConfig(await freshDatabase(t, dialect))
      const db = createDb(migrating(config))
      t.teardown(() => db.destroy())
      await migrateToLatest(db, MIGRATIONS)
      const carried = MIGRATIONS['0121_drop_ban_generation']!
      await carried.down!(db)
      await sql`update ban_generation set generation = 41`.execute(db)
      await carried.up(db)
      const row = await db
        .selectFrom('content_versions')
        .select('version')
        .where('feature', '=', 'banned-players')
        .executeTakeFirst()
      t.equal(Number(row?.version), 42, 'a process that loaded the set at 41 sees the counter move')
      await t.rejects(sql`select 1 from ban_generation`.execute(db), 'the old table is gone')
    },
  )

  t.test('users: e-mail keys stay unique and indexed; no index on display names or raw e-mails', async (t) => {
    const config = testConfig(await freshDatabase(t, dialect))
    const db = createDb(migrating(config))
    t.teardown(() => db.destroy())
    await migrateToLatest(db, MIGRATIONS)
    const indexList = {
      mysql: sql<{ name: string }>`select distinct index_name as name from information_schema.statistics
        where table_schema = database() and table_name = 'users'`,
      sqlite: sql<{ name: string }>`select name from pragma_index_list('users')`,
      postgres: sql<{ name: string }>`select indexname as name from pg_indexes
        where schemaname = current_schema() and tablename = 'users'`,
    }
    const indexes = (await indexList[dialect].execute(db)).rows.map((r) => r.name)
    t.notOk(indexes.includes('users_username_idx'))
    t.notOk(indexes.includes('users_email_idx'))
    t.ok(indexes.includes('users_email_key_idx'))
    const user = (id: string, key: string | null) => ({
      id,
      username: 'Player',
      email: key,
      email_key: key,
      is_anonymous: (key === null ? 1 : 0) as Flag,
      is_verified: 0 as Flag,
      created_at: 1,
      updated_at: 1,
    })
    await db
      .insertInto('users')
      .values([user('00000000-0000-4000-8000-000000000001', null), user('00000000-0000-4000-8000-000000000002', null)])
      .execute()
    await db.insertInto('users').values(user('00000000-0000-4000-8000-000000000003', 'a@example.org')).execute()
    await t.rejects(
      db.insertInto('users').values(user('00000000-0000-4000-8000-000000000004', 'a@example.org')).execute(),
      'a second account with the same e-mail key is refused',
    )
    if (dialect === 'sqlite') {
      const plan = await sql<{
        detail: string
      }>`explain query plan select id from users where email_key = ${'a@example.org'}`.execute(db)
      t.match(
        plan.rows.map((r) => r.detail).join('\n'),
        /users_email_key_idx/,
        'the look-up by e-mail key uses the partial index',
      )
    }
  })

  t.test('leaderboard pages (top, around) are read from the rank index alone, score included', async (t) => {
    const config = testConfig(await freshDatabase(t, dialect))
    const db = createDb(migrating(config))
    t.teardown(() => db.destroy())
    await migrateToLatest(db, MIGRATIONS)
    const page = sql`select user_id, score, rank_score, reached_at from leaderboard_entries
      where board_id = ${'b'} and period = ${'all'} and hidden = 0 and rank_score >= ${5}
      order by rank_score, reached_at, user_id limit 10`
    if (dialect === 'sqlite') {
      const plan = await sql<{ detail: string }>`explain query plan ${page}`.execute(db)
      t.match(
        plan.rows.map((r) => r.detail).join('\n'),
        /USING COVERING INDEX leaderboard_entries_rank_idx/,
        'no look-up in the table per entry',
      )
    } else {
      // The server answers from the index (InnoDB, or PostgreSQL's index-only scan) when it holds every column read.
      const columns =
        dialect === 'mysql'
          ? sql<{ name: string }>`select column_name as name from information_schema.statistics
            where table_schema = database() and table_name = 'leaderboard_entries'
            and index_name = 'leaderboard_entries_rank_idx' order by seq_in_index`
          : sql<{ name: string }>`select a.attname as name from pg_index i
            join pg_class c on c.oid = i.indexrelid
            cross join lateral unnest(i.indkey::int2[]) with ordinality as k(attnum, n)
            join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
            where c.relname = 'leaderboard_entries_rank_idx' order by k.n`
      t.same(
        (await columns.execute(db)).rows.map((r) => r.name),
        ['board_id', 'period', 'hidden', 'rank_score', 'reached_at', 'user_id', 'score'],
        'every column the page reads is in the index',
      )
    }
  })
})
