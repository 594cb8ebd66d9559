import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  // The audit trail of the operator's balance adjustments.
  await db.schema
    .createTable('validated_adjustments')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('user_id', 'varchar(36)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('value_key', 'varchar(24)', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('balance_after', 'bigint', (c) => c.notNull())
    .addColumn('reason', 'varchar(500)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('validated_adjustments_user_idx')
    .on('validated_adjustments')
    .columns(['user_id', 'created_at', 'id'])
    .execute()
  await db.schema
    .createIndex('validated_adjustments_created_idx')
    .on('validated_adjustments')
    .columns(['created_at', 'id'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('validated_adjustments').execute()
}
