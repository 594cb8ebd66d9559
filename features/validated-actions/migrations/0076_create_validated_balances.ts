import type { Kysely } from 'kysely'
import { engineOf } from '../../../db/engines/index.js'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('validated_balances')
    .addColumn('user_id', 'varchar(36)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('value_key', engineOf(db).types.key(24), (c) => c.notNull())
    .addColumn('balance', 'bigint', (c) => c.notNull())
    // Credits of the UTC day `earned_day`; another day reads as 0.
    .addColumn('earned_today', 'bigint', (c) => c.notNull())
    .addColumn('earned_day', 'varchar(10)', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('validated_balances_pk', ['user_id', 'value_key'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('validated_balances').execute()
}
