import type { Kysely } from 'kysely'

/**
 * Where events are sent (contract §13): the URL, the event types (a JSON array), the body format, the
 * signing secret (`whsec_...`, needed whole to sign, so kept as is), and whether it is enabled.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('url', 'varchar(2048)', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('format', 'varchar(16)', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('description', 'varchar(500)')
    .addColumn('secret', 'varchar(64)', (c) => c.notNull())
    .addColumn('disabled_reason', 'varchar(255)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('webhook_endpoints_created_idx')
    .on('webhook_endpoints')
    .columns(['created_at', 'id'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_endpoints').execute()
}
