import type { Kysely } from 'kysely'

/**
 * One row per background job (db/jobs.ts): when its last run was claimed. Every instance asks for the
 * run with one conditional UPDATE, and the row's lock lets exactly one of them have it per period.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('job_runs')
    .addColumn('name', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('claimed_at', 'bigint', (c) => c.notNull())
    .addColumn('claimed_by', 'varchar(36)')
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('job_runs').execute()
}
