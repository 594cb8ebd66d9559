import type { Kysely } from 'kysely'

/**
 * The banned players' change counter moves into `content_versions`, the table of change counters
 * (db/change-counters.ts), under the key `banned-players`; its own one-row table goes. The counter
 * is carried over one higher, so a process that loaded the banned players at the old value reloads.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const row = await db.selectFrom('ban_generation').select('generation').where('id', '=', 1).executeTakeFirst()
  const version = (row ? Number(row.generation) : 0) + 1
  await db.insertInto('content_versions').values({ feature: 'banned-players', version }).execute()
  await db.schema.dropTable('ban_generation').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('ban_generation')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('generation', 'bigint', (c) => c.notNull())
    .execute()
  const row = await db
    .selectFrom('content_versions')
    .select('version')
    .where('feature', '=', 'banned-players')
    .executeTakeFirst()
  if (row)
    await db
      .insertInto('ban_generation')
      .values({ id: 1, generation: Number(row.version) + 1 })
      .execute()
  await db.deleteFrom('content_versions').where('feature', '=', 'banned-players').execute()
}
