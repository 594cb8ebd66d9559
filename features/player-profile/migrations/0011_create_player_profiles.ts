import type { Kysely } from 'kysely'
import { engineOf } from '../../../db/engines/index.js'

const binaryId = (db: Kysely<any>) => engineOf(db).types.key(32)

export async function up(db: Kysely<any>): Promise<void> {
  // One row per player who has a profile or unlocks. `unlock_count` mirrors the player's unlock rows
  // so that the maxUnlocks limit is settled by one conditional UPDATE under any concurrency.
  await db.schema
    .createTable('player_profiles')
    .addColumn('user_id', 'varchar(36)', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('avatar_id', binaryId(db))
    .addColumn('frame_id', binaryId(db))
    .addColumn('badges', 'varchar(4000)', (c) => c.notNull())
    .addColumn('custom_data', engineOf(db).types.longText)
    .addColumn('unlock_count', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('player_profiles').execute()
}
