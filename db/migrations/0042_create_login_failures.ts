import type { Kysely } from 'kysely'

/** Failed e-mail sign-ins, one row each: the lockout counts them in SQL over a sliding window. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('login_failures')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('user_id', 'varchar(36)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('failed_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('login_failures_user_idx')
    .on('login_failures')
    .columns(['user_id', 'failed_at'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('login_failures').execute()
}
