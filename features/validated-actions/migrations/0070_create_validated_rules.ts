import type { Kysely } from 'kysely'
import { engineOf } from '../../../db/engines/index.js'

export async function up(db: Kysely<any>): Promise<void> {
  // Keyed by board key (case-sensitive, like the boards) or `_unbound`: binary collation on MySQL.
  await db.schema
    .createTable('validated_rules')
    .addColumn('board_key', engineOf(db).types.key(64), (c) => c.primaryKey())
    .addColumn('min_duration_seconds', 'integer')
    .addColumn('min_score', 'bigint')
    .addColumn('max_score', 'bigint')
    .addColumn('max_score_per_second', 'double precision')
    .addColumn('stages', 'text', (c) => c.notNull())
    .addColumn('stage_required', 'integer', (c) => c.notNull())
    .addColumn('ticket_ttl_seconds', 'integer', (c) => c.notNull())
    .addColumn('max_runs_per_hour', 'integer')
    .addColumn('max_open_runs', 'integer')
    .addColumn('max_accepted_runs_per_day', 'integer')
    .addColumn('sus_score', 'bigint')
    .addColumn('sus_score_per_second', 'double precision')
    .addColumn('evidence_top_n', 'integer')
    .addColumn('evidence_max_bytes', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('validated_rules_created_idx')
    .on('validated_rules')
    .columns(['created_at', 'board_key'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('validated_rules').execute()
}
