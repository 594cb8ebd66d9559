import type { Kysely } from 'kysely'
import { engineOf } from '../../../db/engines/index.js'

/**
 * The daily rollups the analytics routes read: one row per (metric, dimension, day), so a range of a
 * series is one primary-key range. Dimensions are app versions and board keys, compared exactly as
 * their own tables compare them ("1.0-Beta" is not "1.0-beta").
 */
export async function up(db: Kysely<any>): Promise<void> {
  const exact = engineOf(db).types.key(128)
  await db.schema
    .createTable('analytics_daily')
    .addColumn('metric', 'varchar(32)', (c) => c.notNull())
    .addColumn('dimension', exact, (c) => c.notNull())
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('value', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('analytics_daily_pk', ['metric', 'dimension', 'day'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('analytics_daily').execute()
}
