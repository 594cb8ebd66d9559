import { sql, type Kysely } from 'kysely'
import { engineOf } from '../../../db/engines/index.js'

export async function up(db: Kysely<any>): Promise<void> {
  // CLOUD_SAVE_MAX_BYTES may be set up to 64 MiB: MySQL's BLOB stops at 64 KiB and MEDIUMBLOB at
  // 16 MiB, so LONGBLOB (its length prefix costs one byte more than MEDIUMBLOB's, nothing else).
  // Saves may outgrow MEDIUMBLOB's 16 MB on MySQL; SQLite's blob and PostgreSQL's bytea have no such step.
  const blob = engineOf(db).name === 'mysql' ? sql`longblob` : engineOf(db).types.blob
  await db.schema
    .createTable('cloud_saves')
    .addColumn('user_id', 'varchar(36)', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('data', blob, (c) => c.notNull())
    .addColumn('is_binary', 'integer', (c) => c.notNull())
    .addColumn('size_bytes', 'integer', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('cloud_saves').execute()
}
