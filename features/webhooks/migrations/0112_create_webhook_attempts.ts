import { engineOf } from '../../../db/engines/index.js'
import type { Kysely } from 'kysely'

/** Every delivery attempt: when, its outcome, the receiver's status code, how long it took, the next try. */
export async function up(db: Kysely<any>): Promise<void> {
  await engineOf(db)
    .autoId(db.schema.createTable('webhook_attempts'), 'id')
    .addColumn('delivery_id', 'varchar(36)', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('outcome', 'varchar(16)', (c) => c.notNull())
    .addColumn('response_code', 'integer')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('error', 'varchar(500)')
    .addColumn('next_attempt_at', 'bigint')
    .execute()
  await db.schema
    .createIndex('webhook_attempts_delivery_idx')
    .on('webhook_attempts')
    .columns(['delivery_id', 'id'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_attempts').execute()
}
