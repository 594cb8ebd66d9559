import type { Kysely } from 'kysely'
import { engineOf } from '../../../db/engines/index.js'

export async function up(db: Kysely<any>): Promise<void> {
  // The fingerprint is the grouping key and the version key is compared with `<` in SQL: both must
  // compare byte for byte, not through MySQL's case-insensitive default collation.
  const binary = (n: number) => engineOf(db).types.key(n)
  await db.schema
    .createTable('crash_groups')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('fingerprint', binary(128), (c) => c.notNull().unique())
    .addColumn('type', 'varchar(16)', (c) => c.notNull())
    .addColumn('message', 'varchar(500)', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('resolved_in_version', 'varchar(128)')
    .addColumn('resolved_version_key', binary(255))
    .addColumn('occurrences', 'integer', (c) => c.notNull())
    .addColumn('first_seen', 'bigint', (c) => c.notNull())
    .addColumn('last_seen', 'bigint', (c) => c.notNull())
    .addColumn('last_app_version', 'varchar(128)', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('crash_groups_last_seen_idx').on('crash_groups').columns(['last_seen', 'id']).execute()
  await db.schema.createIndex('crash_groups_count_idx').on('crash_groups').columns(['occurrences', 'id']).execute()
  await db.schema
    .createIndex('crash_groups_status_last_seen_idx')
    .on('crash_groups')
    .columns(['status', 'last_seen', 'id'])
    .execute()
  await db.schema
    .createIndex('crash_groups_status_count_idx')
    .on('crash_groups')
    .columns(['status', 'occurrences', 'id'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('crash_groups').execute()
}
