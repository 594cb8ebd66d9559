import type { Kysely } from 'kysely'

/**
 * One change counter per cached content feature (remote config, localization, news). Every admin
 * write bumps its feature's counter in the same transaction; each instance polls the counter to
 * know when its in-process copy is stale.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('content_versions')
    .addColumn('feature', 'varchar(32)', (c) => c.primaryKey())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('content_versions').execute()
}
