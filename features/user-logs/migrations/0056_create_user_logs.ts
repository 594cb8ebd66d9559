import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('user_logs')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('user_id', 'varchar(36)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    // 1,000 characters at most: 4,000 bytes in utf8mb4, inside MySQL TEXT.
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('type', 'varchar(5)', (c) => c.notNull())
    .addColumn('error_code', 'varchar(50)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('user_logs_created_idx').on('user_logs').columns(['created_at', 'id']).execute()
  await db.schema.createIndex('user_logs_user_idx').on('user_logs').columns(['user_id', 'created_at', 'id']).execute()
  await db.schema.createIndex('user_logs_type_idx').on('user_logs').columns(['type', 'created_at', 'id']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('user_logs').execute()
}
