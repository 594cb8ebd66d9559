import type { Kysely } from 'kysely'
import { engineOf } from '../../../db/engines/index.js'

/**
 * Operator-defined e-mail templates. Slugs compare case-sensitively on both engines (binary
 * collation on MySQL). Variables and translations are JSON documents; translations can reach a
 * megabyte, so MEDIUMTEXT on MySQL (TEXT stops at 64 KiB).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('email_templates')
    .addColumn('slug', engineOf(db).types.key(64), (c) => c.primaryKey())
    .addColumn('default_language', 'varchar(35)', (c) => c.notNull())
    .addColumn('client_callable', 'integer', (c) => c.notNull())
    .addColumn('is_system', 'integer', (c) => c.notNull())
    .addColumn('variables', 'text', (c) => c.notNull())
    .addColumn('translations', engineOf(db).types.longText, (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('email_templates_created_idx')
    .on('email_templates')
    .columns(['created_at', 'slug'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('email_templates').execute()
}
