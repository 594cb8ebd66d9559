import { randomUUID } from 'node:crypto'
import { engineOf } from '../../../db/engines/index.js'
import type { Kysely } from 'kysely'

const MAX_SAFE = 9007199254740991

export async function up(db: Kysely<any>): Promise<void> {
  // Board keys are case-sensitive ("Level 1" and "level 1" are two boards): binary collation on MySQL.
  await db.schema
    .createTable('leaderboards')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('board_key', engineOf(db).types.key(64), (c) => c.notNull().unique())
    .addColumn('name', 'varchar(100)', (c) => c.notNull())
    .addColumn('sort_order', 'varchar(4)', (c) => c.notNull())
    .addColumn('update_strategy', 'varchar(10)', (c) => c.notNull())
    .addColumn('min_score', 'bigint', (c) => c.notNull())
    .addColumn('max_score', 'bigint', (c) => c.notNull())
    .addColumn('reset_schedule', 'varchar(10)', (c) => c.notNull())
    .addColumn('validated_only', 'integer', (c) => c.notNull())
    .addColumn('is_active', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('leaderboards_created_idx').on('leaderboards').columns(['created_at', 'id']).execute()
  const now = Date.now()
  await db
    .insertInto('leaderboards')
    .values({
      id: randomUUID(),
      board_key: 'default',
      name: 'Default',
      sort_order: 'desc',
      update_strategy: 'best',
      min_score: 0,
      max_score: MAX_SAFE,
      reset_schedule: 'none',
      validated_only: 0,
      is_active: 1,
      created_at: now,
      updated_at: now,
    })
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('leaderboards').execute()
}
