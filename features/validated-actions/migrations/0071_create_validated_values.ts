import type { Kysely } from 'kysely'
import { engineOf } from '../../../db/engines/index.js'

export async function up(db: Kysely<any>): Promise<void> {
  // "gold" and "GOLD" sent in `earned` must not be one key: binary collation on MySQL.
  await db.schema
    .createTable('validated_values')
    .addColumn('value_key', engineOf(db).types.key(24), (c) => c.primaryKey())
    .addColumn('min_per_run', 'bigint')
    .addColumn('max_per_run', 'bigint')
    .addColumn('daily_cap', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('validated_values_created_idx')
    .on('validated_values')
    .columns(['created_at', 'value_key'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('validated_values').execute()
}
