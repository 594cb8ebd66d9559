import type { Kysely } from 'kysely'
import { engineOf } from '../../../db/engines/index.js'

export async function up(db: Kysely<any>): Promise<void> {
  // One row per distinct user a group has hit. user ids are client strings here: compared exactly.
  const userKey = engineOf(db).types.key(128)
  await db.schema
    .createTable('crash_group_users')
    .addColumn('group_id', 'varchar(36)', (c) => c.notNull().references('crash_groups.id').onDelete('cascade'))
    .addColumn('user_key', userKey, (c) => c.notNull())
    .addColumn('linked_user_id', 'varchar(36)', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('first_seen', 'bigint', (c) => c.notNull())
    .addColumn('last_seen', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('crash_group_users_pk', ['group_id', 'user_key'])
    .execute()
  await db.schema.createIndex('crash_group_users_user_idx').on('crash_group_users').column('linked_user_id').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('crash_group_users').execute()
}
