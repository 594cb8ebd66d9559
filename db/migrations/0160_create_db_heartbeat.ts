import type { Kysely } from 'kysely'

/**
 * One row, the writer's clock in milliseconds as its database server last wrote it (db/read-hosts.ts):
 * read on a replica and on the writer at once, the two tell how far behind the replica is.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('db_heartbeat')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('beat_ms', 'bigint', (c) => c.notNull())
    .execute()
  await db.insertInto('db_heartbeat').values({ id: 1, beat_ms: 0 }).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('db_heartbeat').execute()
}
