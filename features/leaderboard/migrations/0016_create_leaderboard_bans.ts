import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('leaderboard_bans')
    .addColumn('board_id', 'varchar(36)', (c) => c.notNull().references('leaderboards.id').onDelete('cascade'))
    .addColumn('user_id', 'varchar(36)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('reason', 'varchar(500)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('leaderboard_bans_pk', ['board_id', 'user_id'])
    .execute()
  await db.schema.createIndex('leaderboard_bans_user_idx').on('leaderboard_bans').column('user_id').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('leaderboard_bans').execute()
}
