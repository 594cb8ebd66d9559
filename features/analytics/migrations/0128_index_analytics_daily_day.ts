import { type Kysely } from 'kysely'
import { engineOf } from '../../../db/engines/index.js'

/**
 * The rollup job reads and replaces one day's rows at a time (every 30 s for today). The primary key
 * starts with the metric and the dimension, so without this index a day's rows of a per-version or
 * per-board metric are found by reading that metric's rows of every day.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('analytics_daily_day_idx').on('analytics_daily').columns(['day', 'metric']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await engineOf(db).dropIndex(db, 'analytics_daily_day_idx', 'analytics_daily').execute()
}
