import { sql, type Kysely } from 'kysely'
import { engineOf } from '../../../db/engines/index.js'

/**
 * Operator names compare byte for byte on MySQL too. Under utf8mb4_unicode_ci `ownér` and `OWNER`
 * equal `owner`, so a name typed at sign-in matched an operator it is not. Names are stored trimmed
 * and lower-cased (letters, digits, `.`, `_`, `-`), so the unique key still means what it did: no two
 * operators `owner` and `Owner`, as both are stored `owner`. SQLite compares bytes already (BINARY).
 */

async function collate(db: Kysely<any>, collation: 'utf8mb4_bin' | 'utf8mb4_unicode_ci') {
  if (engineOf(db).name !== 'mysql') return
  await db.schema
    .alterTable('operators')
    .modifyColumn('username', sql`varchar(64) character set utf8mb4 collate ${sql.raw(collation)}`, (c) => c.notNull())
    .execute()
}

export async function up(db: Kysely<any>): Promise<void> {
  await collate(db, 'utf8mb4_bin')
}

export async function down(db: Kysely<any>): Promise<void> {
  await collate(db, 'utf8mb4_unicode_ci')
}
