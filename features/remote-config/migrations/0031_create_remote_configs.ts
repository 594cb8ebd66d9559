import type { Kysely } from 'kysely'
import { engineOf } from '../../../db/engines/index.js'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('remote_configs')
    // Keys are case-sensitive by contract: `Speed` and `speed` are two keys (binary collation on MySQL).
    .addColumn('config_key', engineOf(db).types.key(128), (c) => c.primaryKey())
    // Up to 65,536 characters: more than MySQL TEXT's 64 KiB of bytes once characters take four.
    .addColumn('config_value', engineOf(db).types.longText, (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('remote_configs_updated_idx')
    .on('remote_configs')
    .columns(['updated_at', 'config_key'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('remote_configs').execute()
}
