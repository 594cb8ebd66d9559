import type { Kysely } from 'kysely'
import { engineOf } from '../../../db/engines/index.js'

export async function up(db: Kysely<any>): Promise<void> {
  // Session ids are client strings (32 hex digits from the SDKs, anything up to 128 characters from
  // others): compared byte for byte, not through MySQL's case- and accent-insensitive default.
  // App versions are grouped and filtered exactly too ("1.0-Beta" is not "1.0-beta").
  const exact = engineOf(db).types.key(128)
  await db.schema
    .createTable('crash_sessions')
    .addColumn('session_id', exact, (c) => c.primaryKey())
    .addColumn('app_version', exact, (c) => c.notNull())
    .addColumn('platform', 'varchar(128)', (c) => c.notNull())
    .addColumn('user_id', 'varchar(128)', (c) => c.notNull())
    .addColumn('linked_user_id', 'varchar(36)', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('crashed', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('crashed_at', 'bigint')
    .execute()
  await db.schema
    .createIndex('crash_sessions_version_idx')
    .on('crash_sessions')
    .columns(['app_version', 'crashed'])
    .execute()
  await db.schema.createIndex('crash_sessions_user_idx').on('crash_sessions').column('linked_user_id').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('crash_sessions').execute()
}
