import { sql, type Kysely } from 'kysely'
import { engineOf } from '../../../db/engines/index.js'

/**
 * E-mail accounts: a password hash, the e-mail's unique key (trimmed, lower-cased: unique
 * case-insensitively on both engines) and the end of a sign-in lockout. On MySQL the key is binary
 * collated, because utf8mb4_unicode_ci would also merge accents ("é@x.org" = "e@x.org").
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('password_hash', 'varchar(255)').execute()
  await db.schema.alterTable('users').addColumn('email_key', engineOf(db).types.key(254)).execute()
  await db.schema.alterTable('users').addColumn('login_locked_until', 'bigint').execute()
  await sql`update users set email_key = lower(trim(email)) where email is not null`.execute(db)
  // SQLite cannot add a UNIQUE column; a unique index does the same on both engines (NULLs repeat).
  await db.schema.createIndex('users_email_key_idx').on('users').column('email_key').unique().execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  // MySQL names the table of an index to drop; SQLite refuses the ON clause.
  await engineOf(db).dropIndex(db, 'users_email_key_idx', 'users').execute()
  await db.schema.alterTable('users').dropColumn('login_locked_until').execute()
  await db.schema.alterTable('users').dropColumn('email_key').execute()
  await db.schema.alterTable('users').dropColumn('password_hash').execute()
}
