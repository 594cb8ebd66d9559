import type { Kysely } from 'kysely'

/**
 * The days each player was active (contract §12): written in batches by every server process with
 * INSERT-or-ignore, so the primary key makes a player count once per day however many processes saw
 * them. The user index serves the cascade when a player is deleted (their activity goes with them).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('player_activity')
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'varchar(36)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('player_activity_pk', ['day', 'user_id'])
    .execute()
  await db.schema.createIndex('player_activity_user_idx').on('player_activity').columns(['user_id', 'day']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('player_activity').execute()
}
