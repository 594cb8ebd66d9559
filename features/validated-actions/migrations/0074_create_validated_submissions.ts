import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  // Every submit outcome, kept ones included (a run may be tried several times); run_id is null
  // for an unknown ticket.
  await db.schema
    .createTable('validated_submissions')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('run_id', 'varchar(36)', (c) => c.references('validated_runs.id').onDelete('cascade'))
    .addColumn('user_id', 'varchar(36)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('code', 'varchar(40)', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('validated_submissions_run_idx')
    .on('validated_submissions')
    .columns(['run_id', 'created_at'])
    .execute()
  await db.schema
    .createIndex('validated_submissions_user_idx')
    .on('validated_submissions')
    .columns(['user_id', 'created_at'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('validated_submissions').execute()
}
