import type { Kysely } from 'kysely'

/**
 * The sign-in lockout counts failures per e-mail address, whether or not an account has it, so
 * that it answers the same for unknown addresses (no account enumeration). Failures and locks are
 * keyed by the SHA-256 of the normalized address: the typed addresses themselves are not kept.
 * The old per-user rows are dropped: they only ever live 15 minutes.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('login_failures').execute()
  await db.schema
    .createTable('login_failures')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('key_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('failed_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('login_failures_key_idx')
    .on('login_failures')
    .columns(['key_hash', 'failed_at'])
    .execute()
  await db.schema.createIndex('login_failures_time_idx').on('login_failures').column('failed_at').execute()
  await db.schema
    .createTable('login_locks')
    .addColumn('key_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('locked_until', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('login_locks_until_idx').on('login_locks').column('locked_until').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('login_locks').execute()
  await db.schema.dropTable('login_failures').execute()
  await db.schema
    .createTable('login_failures')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('user_id', 'varchar(36)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('failed_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('login_failures_user_idx')
    .on('login_failures')
    .columns(['user_id', 'failed_at'])
    .execute()
}
