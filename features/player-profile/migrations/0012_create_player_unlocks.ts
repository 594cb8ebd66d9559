import type { Kysely } from 'kysely'
import { engineOf } from '../../../db/engines/index.js'

const binaryId = (db: Kysely<any>) => engineOf(db).types.key(32)

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('player_unlocks')
    .addColumn('user_id', 'varchar(36)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('cosmetic_id', binaryId(db), (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('player_unlocks_pk', ['user_id', 'cosmetic_id'])
    .execute()
  await db.schema.createIndex('player_unlocks_cosmetic_idx').on('player_unlocks').column('cosmetic_id').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('player_unlocks').execute()
}
