import type { Kysely } from 'kysely'

/**
 * The past days whose rollups are final. A builder inserts the day's row in the transaction that
 * writes the day's rollups: the key lets one instance have it, and a build that fails leaves no row.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('analytics_days')
    .addColumn('day', 'integer', (c) => c.primaryKey())
    .addColumn('built_at', 'bigint', (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('analytics_days').execute()
}
