import { type Kysely } from 'kysely'
import { engineOf } from '../../../db/engines/index.js'

/**
 * Fewer b-trees written per sign-up. Every new player was written into seven b-trees of `users`, and
 * with WAL each one is at least a page appended at the commit: SQLite measured an anonymous user's
 * insert and commit at 72–74 µs with them all and 52–54 µs after this migration.
 * - `users_username_idx` and `users_email_idx` served no query: display names are not unique and
 *   are only searched with `LIKE '%…%'` (the console's player search, a scan either way), and e-mail
 *   look-ups go through `email_key`. Both are dropped on both engines.
 * - `users_email_key_idx` (unique) holds only e-mail accounts on SQLite now, as a partial index:
 *   anonymous players have no key, and `email_key = ?` still uses it. MySQL has no partial indexes.
 */

async function dropIndex(db: Kysely<any>, name: string) {
  // MySQL names the table of an index to drop; SQLite refuses the ON clause.
  await engineOf(db).dropIndex(db, name, 'users').execute()
}

export async function up(db: Kysely<any>): Promise<void> {
  await dropIndex(db, 'users_username_idx')
  await dropIndex(db, 'users_email_idx')
  if (engineOf(db).name !== 'mysql') {
    await dropIndex(db, 'users_email_key_idx')
    await db.schema
      .createIndex('users_email_key_idx')
      .on('users')
      .column('email_key')
      .unique()
      .where('email_key', 'is not', null)
      .execute()
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (engineOf(db).name !== 'mysql') {
    await dropIndex(db, 'users_email_key_idx')
    await db.schema.createIndex('users_email_key_idx').on('users').column('email_key').unique().execute()
  }
  await db.schema.createIndex('users_email_idx').on('users').column('email').execute()
  await db.schema.createIndex('users_username_idx').on('users').column('username').execute()
}
