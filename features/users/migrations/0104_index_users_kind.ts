import { type Kysely } from 'kysely'
import { engineOf } from '../../../db/engines/index.js'

/**
 * The analytics totals count players by kind and banned players exactly (contract §12): on this narrow
 * index the total is a scan of small entries, anonymous players one range of it, e-mail accounts and
 * banned players short ranges, instead of scans of the whole table.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('users_kind_idx').on('users').columns(['is_anonymous', 'banned_at']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await engineOf(db).dropIndex(db, 'users_kind_idx', 'users').execute()
}
