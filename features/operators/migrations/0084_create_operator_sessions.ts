import type { Kysely } from 'kysely'

/** Console sessions: the cookie's token is stored only as its SHA-256; a revoked session is deleted. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('operator_sessions')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('operator_id', 'varchar(36)', (c) => c.notNull().references('operators.id').onDelete('cascade'))
    .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('operator_sessions_operator_idx').on('operator_sessions').column('operator_id').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('operator_sessions').execute()
}
