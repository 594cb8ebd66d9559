import { sql, type Kysely } from 'kysely'
import { engineOf } from '../../../db/engines/index.js'
import { createRoutine } from './0131_leaderboard_submit_routine.js'

/**
 * The count tree's rows get a `slot`, in the primary key: a count is the sum of its rows over the
 * slots. Each node of a Galera cluster writes its own slot (db/mysql-session.ts), so that submits
 * through two nodes never change one row: every first entry adds 1 to the rows near the root, which
 * the cluster's certification aborted as conflicts (why and what it measured: docs/performance.md,
 * "Hot counters on a Galera cluster"). Every other server writes slot 0 alone: the rows stay as they
 * were, each with slot 0.
 * The submit routine is made again to write the connection's slot.
 */
const KEY = ['board_id', 'period', 'level', 'prefix']

/** SQLite changes a primary key by a new table: WITHOUT ROWID, as migration 0090 made it. */
async function rebuildSqlite(db: Kysely<any>, slots: boolean): Promise<void> {
  const columns = slots ? [...KEY, 'slot'] : KEY
  await db.schema
    .createTable('leaderboard_counts_rebuilt')
    .addColumn('board_id', 'varchar(36)', (c) => c.notNull().references('leaderboards.id').onDelete('cascade'))
    .addColumn('period', 'varchar(10)', (c) => c.notNull())
    .addColumn('level', 'integer', (c) => c.notNull())
    .addColumn('prefix', 'bigint', (c) => c.notNull())
    .$call((table) => (slots ? table.addColumn('slot', 'integer', (c) => c.notNull().defaultTo(0)) : table))
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('leaderboard_counts_pk', columns as never)
    .modifyEnd(sql`without rowid`)
    .execute()
  // Up, every row takes slot 0; down, the slots were summed into slot 0 first: a row per count is left.
  await sql`insert into leaderboard_counts_rebuilt (board_id, period, level, prefix, n)
    select board_id, period, level, prefix, n from leaderboard_counts`.execute(db)
  await db.schema.dropTable('leaderboard_counts').execute()
  await db.schema.alterTable('leaderboard_counts_rebuilt').renameTo('leaderboard_counts').execute()
}

export async function up(db: Kysely<any>): Promise<void> {
  const engine = engineOf(db).name
  // One statement on the servers: the table is never without a primary key (Galera needs one, and
  // the foreign key on board_id its index).
  if (engine === 'mysql') {
    await sql`alter table leaderboard_counts add column slot integer not null default 0 after prefix,
      drop primary key, add primary key (board_id, period, level, prefix, slot)`.execute(db)
    await sql`drop procedure if exists leaderboard_submit`.execute(db)
  } else if (engine === 'postgres') {
    await sql`alter table leaderboard_counts add column slot integer not null default 0,
      drop constraint leaderboard_counts_pk,
      add constraint leaderboard_counts_pk primary key (board_id, period, level, prefix, slot)`.execute(db)
  } else {
    await rebuildSqlite(db, true)
  }
  await createRoutine(db, { slots: true })
}

export async function down(db: Kysely<any>): Promise<void> {
  const engine = engineOf(db).name
  // Every count's slots summed into its slot-0 row, then the other slots' rows dropped.
  const merged = sql`insert into leaderboard_counts (board_id, period, level, prefix, slot, n)
    select board_id, period, level, prefix, 0, sum(n) from leaderboard_counts where slot <> 0
    group by board_id, period, level, prefix`
  await (
    engine === 'mysql'
      ? sql`${merged} on duplicate key update n = n + values(n)`
      : sql`${merged} on conflict (board_id, period, level, prefix, slot) do update set n = leaderboard_counts.n + excluded.n`
  ).execute(db)
  await sql`delete from leaderboard_counts where slot <> 0`.execute(db)
  if (engine === 'mysql') {
    await sql`drop procedure if exists leaderboard_submit`.execute(db)
    await sql`alter table leaderboard_counts drop primary key, add primary key (board_id, period, level, prefix),
      drop column slot`.execute(db)
  } else if (engine === 'postgres') {
    await sql`alter table leaderboard_counts drop constraint leaderboard_counts_pk,
      add constraint leaderboard_counts_pk primary key (board_id, period, level, prefix), drop column slot`.execute(db)
  } else {
    await rebuildSqlite(db, false)
  }
  await createRoutine(db, { slots: false })
}
