import type { Kysely } from 'kysely'

/** The people who run the game (never players): one row each, with a role and an optional TOTP secret. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('operators')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    // Lower-cased on the way in, so names are unique case-insensitively on both engines.
    .addColumn('username', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('password_hash', 'varchar(255)', (c) => c.notNull())
    .addColumn('role', 'varchar(16)', (c) => c.notNull())
    .addColumn('totp_secret', 'varchar(64)')
    .addColumn('totp_pending_secret', 'varchar(64)')
    // The last TOTP time step accepted: a code is refused unless its step is later (no replay).
    .addColumn('totp_last_step', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('operators_role_idx').on('operators').column('role').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('operators').execute()
}
