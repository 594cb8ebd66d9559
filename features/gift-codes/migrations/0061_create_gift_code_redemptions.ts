import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('gift_code_redemptions')
    .addColumn('gift_code_id', 'varchar(36)', (c) => c.notNull().references('gift_codes.id').onDelete('cascade'))
    .addColumn('user_id', 'varchar(36)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('granted_unlocks', 'text', (c) => c.notNull())
    .addColumn('redeemed_at', 'bigint', (c) => c.notNull())
    // The key that makes a second redemption by the same user fail, whatever the concurrency.
    .addPrimaryKeyConstraint('gift_code_redemptions_pk', ['gift_code_id', 'user_id'])
    .execute()
  await db.schema.createIndex('gift_code_redemptions_user_idx').on('gift_code_redemptions').column('user_id').execute()
  await db.schema
    .createIndex('gift_code_redemptions_code_time_idx')
    .on('gift_code_redemptions')
    .columns(['gift_code_id', 'redeemed_at', 'user_id'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('gift_code_redemptions').execute()
}
