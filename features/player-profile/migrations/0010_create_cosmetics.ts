import type { Kysely } from 'kysely'
import { engineOf } from '../../../db/engines/index.js'

// Cosmetic ids are case-sensitive by contract: binary collation on MySQL (its default ignores case).
const binaryId = (db: Kysely<any>) => engineOf(db).types.key(32)

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('cosmetics')
    .addColumn('id', binaryId(db), (c) => c.primaryKey())
    .addColumn('type', 'varchar(16)', (c) => c.notNull())
    .addColumn('name', 'varchar(100)', (c) => c.notNull())
    .addColumn('locked', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('cosmetics_created_idx').on('cosmetics').columns(['created_at', 'id']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('cosmetics').execute()
}
