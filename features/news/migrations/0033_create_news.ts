import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('news')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('title', 'varchar(200)', (c) => c.notNull())
    // 10,000 characters at most: 40,000 bytes in utf8mb4, inside MySQL TEXT.
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('language_code', 'varchar(35)', (c) => c.notNull())
    .addColumn('release_date', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('news_release_idx').on('news').columns(['release_date', 'id']).execute()
  await db.schema
    .createIndex('news_language_release_idx')
    .on('news')
    .columns(['language_code', 'release_date', 'id'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('news').execute()
}
