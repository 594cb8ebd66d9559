import { MysqlAdapter, type Kysely } from 'kysely'

/**
 * The analytics totals count players by kind and banned players exactly (contract §12): on this narrow
 * index the total is a scan of small entries, anonymous players one range of it, e-mail accounts and
 * banned players short ranges, instead of scans of the whole table.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('users_kind_idx').on('users').columns(['is_anonymous', 'banned_at']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  const drop = db.schema.dropIndex('users_kind_idx')
  await (db.getExecutor().adapter instanceof MysqlAdapter ? drop.on('users') : drop).execute()
}
