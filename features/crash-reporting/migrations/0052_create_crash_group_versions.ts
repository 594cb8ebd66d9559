import type { Kysely } from 'kysely'
import { engineOf } from '../../../db/engines/index.js'

export async function up(db: Kysely<any>): Promise<void> {
  // Versions are told apart exactly ("1.0-Beta" is not "1.0-beta"), as in crash_sessions.
  const version = engineOf(db).types.key(128)
  await db.schema
    .createTable('crash_group_versions')
    .addColumn('group_id', 'varchar(36)', (c) => c.notNull().references('crash_groups.id').onDelete('cascade'))
    .addColumn('app_version', version, (c) => c.notNull())
    .addColumn('occurrences', 'integer', (c) => c.notNull())
    .addColumn('first_seen', 'bigint', (c) => c.notNull())
    .addColumn('last_seen', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('crash_group_versions_pk', ['group_id', 'app_version'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('crash_group_versions').execute()
}
