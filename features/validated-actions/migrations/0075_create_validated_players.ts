import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  // One row per player, write-locked by every run start, submit and balance adjustment: it orders
  // them per player, so the counted limits and the balances stay exact across instances.
  await db.schema
    .createTable('validated_players')
    .addColumn('user_id', 'varchar(36)', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('locked_at', 'bigint', (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('validated_players').execute()
}
