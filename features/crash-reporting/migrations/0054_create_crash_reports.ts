import type { Kysely } from 'kysely'
import { engineOf } from '../../../db/engines/index.js'

export async function up(db: Kysely<any>): Promise<void> {
  // A stack trace runs to 65,536 characters (up to 256 KiB in utf8mb4), and breadcrumbs and custom
  // keys to most of a 256 KiB body: past MySQL TEXT's 64 KiB, so MEDIUMTEXT there.
  const big = engineOf(db).types.longText
  const sessionId = engineOf(db).types.key(128)
  await db.schema
    .createTable('crash_reports')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('group_id', 'varchar(36)', (c) => c.notNull().references('crash_groups.id').onDelete('cascade'))
    .addColumn('session_id', sessionId, (c) => c.notNull())
    .addColumn('type', 'varchar(16)', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('stack_trace', big, (c) => c.notNull())
    .addColumn('fingerprint', 'varchar(128)', (c) => c.notNull())
    .addColumn('app_version', 'varchar(128)', (c) => c.notNull())
    .addColumn('sdk_version', 'varchar(128)', (c) => c.notNull())
    .addColumn('platform', 'varchar(128)', (c) => c.notNull())
    .addColumn('os', 'varchar(255)', (c) => c.notNull())
    .addColumn('device_model', 'varchar(255)', (c) => c.notNull())
    .addColumn('device_memory_mb', 'bigint')
    .addColumn('user_id', 'varchar(128)', (c) => c.notNull())
    .addColumn('linked_user_id', 'varchar(36)', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('breadcrumbs', big, (c) => c.notNull())
    .addColumn('custom_keys', big, (c) => c.notNull())
    .addColumn('truncated', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('crash_reports_group_idx')
    .on('crash_reports')
    .columns(['group_id', 'created_at', 'id'])
    .execute()
  await db.schema.createIndex('crash_reports_user_idx').on('crash_reports').column('linked_user_id').execute()
  await db.schema.createIndex('crash_reports_session_idx').on('crash_reports').column('session_id').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('crash_reports').execute()
}
