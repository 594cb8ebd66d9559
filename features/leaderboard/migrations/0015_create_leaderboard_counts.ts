import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  // The radix count tree beside the entries (see features/leaderboard/ranking.ts): for each level, how
  // many visible entries of a board period have a rank key starting with `prefix`. Level 0 is the total.
  await db.schema
    .createTable('leaderboard_counts')
    .addColumn('board_id', 'varchar(36)', (c) => c.notNull().references('leaderboards.id').onDelete('cascade'))
    .addColumn('period', 'varchar(10)', (c) => c.notNull())
    .addColumn('level', 'integer', (c) => c.notNull())
    .addColumn('prefix', 'bigint', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('leaderboard_counts_pk', ['board_id', 'period', 'level', 'prefix'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('leaderboard_counts').execute()
}
