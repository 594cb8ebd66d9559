import type { Kysely } from 'kysely'

/**
 * Sign-in providers (Apple, Google) bound to users: one user per provider subject, settled by the
 * primary key on both engines. Deleting the user frees the subject (ON DELETE CASCADE).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('user_identities')
    .addColumn('provider', 'varchar(16)', (c) => c.notNull())
    .addColumn('subject', 'varchar(255)', (c) => c.notNull())
    .addColumn('user_id', 'varchar(36)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('email', 'varchar(254)')
    .addColumn('is_private_email', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_identities_pk', ['provider', 'subject'])
    .execute()
  await db.schema.createIndex('user_identities_user_idx').on('user_identities').columns(['user_id']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('user_identities').execute()
}
