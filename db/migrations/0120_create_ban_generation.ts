import type { Kysely } from 'kysely'

/**
 * One change counter for the banned players (a single row, id 1, written on the first change).
 * Every write to users.banned_at bumps it in the same transaction; each process polls it to know
 * when its in-memory set of banned players is stale (platform/security/banned-players.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('ban_generation')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('generation', 'bigint', (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('ban_generation').execute()
}
