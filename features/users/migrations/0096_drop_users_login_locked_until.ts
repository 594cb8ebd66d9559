import type { Kysely } from 'kysely'

/**
 * `users.login_locked_until` has been unused since the e-mail lockout moved to its own tables
 * (login_failures, login_locks, keyed by address): a lock per account would let anyone lock a
 * player out by name and tell which addresses have accounts.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('login_locked_until').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('login_locked_until', 'bigint').execute()
}
