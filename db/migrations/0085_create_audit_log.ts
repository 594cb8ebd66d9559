import { engineOf } from '../engines/index.js'
import type { Kysely } from 'kysely'

/**
 * Every admin write, sign-in and failed sign-in. No foreign key to operators: the trail outlives the
 * operator it names. The sign-in lockout counts failed sign-ins here (action, actor, at). The id is
 * the insertion order (many entries share a millisecond), which the list pages by.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await engineOf(db)
    .autoId(db.schema.createTable('audit_log'), 'id')
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('actor', 'varchar(64)', (c) => c.notNull())
    .addColumn('role', 'varchar(16)')
    .addColumn('address', 'varchar(64)', (c) => c.notNull())
    .addColumn('request_id', 'varchar(128)', (c) => c.notNull())
    .addColumn('action', 'varchar(255)', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('target', 'text')
    .addColumn('changes', 'text')
    .execute()
  await db.schema.createIndex('audit_log_at_idx').on('audit_log').column('at').execute()
  await db.schema.createIndex('audit_log_actor_idx').on('audit_log').columns(['actor', 'id']).execute()
  await db.schema.createIndex('audit_log_action_idx').on('audit_log').columns(['action', 'actor', 'at']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('audit_log').execute()
}
