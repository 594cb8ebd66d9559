import type { Kysely } from 'kysely'
import { engineOf } from '../../../db/engines/index.js'

export async function up(db: Kysely<any>): Promise<void> {
  // Logs are at most evidenceMaxBytes (≤ 8 MiB): MEDIUMBLOB (16 MiB) on MySQL, BLOB's 64 KiB is too small.
  const blob = engineOf(db).types.blob
  await db.schema
    .createTable('validated_evidence')
    .addColumn('run_id', 'varchar(36)', (c) => c.primaryKey().references('validated_runs.id').onDelete('cascade'))
    .addColumn('data', blob, (c) => c.notNull())
    .addColumn('bytes', 'integer', (c) => c.notNull())
    .addColumn('uploaded_at', 'bigint', (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('validated_evidence').execute()
}
