import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('user_feedback')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    // null: sent by nobody signed in (anonymous feedback).
    .addColumn('user_id', 'varchar(36)', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('title', 'varchar(100)', (c) => c.notNull())
    // 2,048 characters at most: 8 KiB in utf8mb4, inside MySQL TEXT.
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('category', 'varchar(32)', (c) => c.notNull())
    .addColumn('email', 'varchar(254)')
    .addColumn('device_info', 'varchar(500)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('user_feedback_created_idx').on('user_feedback').columns(['created_at', 'id']).execute()
  await db.schema
    .createIndex('user_feedback_user_idx')
    .on('user_feedback')
    .columns(['user_id', 'created_at', 'id'])
    .execute()
  await db.schema
    .createIndex('user_feedback_category_idx')
    .on('user_feedback')
    .columns(['category', 'created_at', 'id'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('user_feedback').execute()
}
