import type { Kysely } from 'kysely'
import { engineOf } from '../../../db/engines/index.js'

export async function up(db: Kysely<any>): Promise<void> {
  // The initial state is at most evidenceMaxBytes (≤ 8 MiB): MEDIUMBLOB (16 MiB) on MySQL.
  const blob = engineOf(db).types.blob
  await db.schema
    .createTable('validated_runs')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('user_id', 'varchar(36)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('ticket_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('board_key', engineOf(db).types.key(64))
    .addColumn('seed', 'integer', (c) => c.notNull())
    .addColumn('context', 'text')
    .addColumn('initial_state', blob)
    .addColumn('issued_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('consumed_at', 'bigint')
    .addColumn('outcome', 'varchar(16)')
    .addColumn('reason', 'varchar(40)')
    .addColumn('score', 'bigint')
    .addColumn('stage', 'varchar(64)')
    .addColumn('input_log_hash', 'varchar(64)')
    .addColumn('earned', 'text')
    .addColumn('duration_ms', 'bigint')
    .addColumn('stored_score', 'bigint')
    .addColumn('board_rank', 'bigint')
    .addColumn('sus', 'integer', (c) => c.notNull())
    .addColumn('sus_reasons', 'text')
    .addColumn('evidence_status', 'varchar(16)')
    .addColumn('evidence_upload_before', 'bigint')
    .addColumn('evidence_max_bytes', 'integer')
    .addColumn('review_verdict', 'varchar(16)')
    .addColumn('score_withdrawn', 'integer', (c) => c.notNull())
    .addColumn('reviewed_at', 'bigint')
    .execute()
  // Rate limit, open-run and daily counts per player and board; the admin list newest first.
  await db.schema
    .createIndex('validated_runs_user_idx')
    .on('validated_runs')
    .columns(['user_id', 'board_key', 'issued_at'])
    .execute()
  await db.schema
    .createIndex('validated_runs_accepted_idx')
    .on('validated_runs')
    .columns(['user_id', 'board_key', 'outcome', 'consumed_at'])
    .execute()
  await db.schema.createIndex('validated_runs_issued_idx').on('validated_runs').columns(['issued_at', 'id']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('validated_runs').execute()
}
