import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  // `rank_score` is the score turned so that smaller is always better (−score on desc boards): one
  // ascending index then serves both sort orders, and ranking needs no mixed-direction scan.
  await db.schema
    .createTable('leaderboard_entries')
    .addColumn('board_id', 'varchar(36)', (c) => c.notNull().references('leaderboards.id').onDelete('cascade'))
    .addColumn('period', 'varchar(10)', (c) => c.notNull())
    .addColumn('user_id', 'varchar(36)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('score', 'bigint', (c) => c.notNull())
    .addColumn('rank_score', 'bigint', (c) => c.notNull())
    .addColumn('reached_at', 'bigint', (c) => c.notNull())
    .addColumn('hidden', 'integer', (c) => c.notNull())
    .addColumn('metadata', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('leaderboard_entries_pk', ['board_id', 'period', 'user_id'])
    .execute()
  await db.schema
    .createIndex('leaderboard_entries_rank_idx')
    .on('leaderboard_entries')
    .columns(['board_id', 'period', 'hidden', 'rank_score', 'reached_at', 'user_id'])
    .execute()
  await db.schema
    .createIndex('leaderboard_entries_user_idx')
    .on('leaderboard_entries')
    .columns(['user_id', 'board_id'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('leaderboard_entries').execute()
}
