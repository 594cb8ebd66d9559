import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('gift_codes')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    // Stored upper-case and looked up upper-case, so the default (case-insensitive) collation is harmless.
    .addColumn('code', 'varchar(32)', (c) => c.notNull().unique())
    // 10,000 characters at most: 40,000 bytes in utf8mb4, inside MySQL TEXT.
    .addColumn('gift_data', 'text', (c) => c.notNull())
    .addColumn('grants', 'text', (c) => c.notNull())
    .addColumn('max_redemptions', 'integer', (c) => c.notNull())
    .addColumn('redemption_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('starts_at', 'bigint')
    .addColumn('expires_at', 'bigint')
    .addColumn('revoked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('revoked_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('gift_codes_created_idx').on('gift_codes').columns(['created_at', 'id']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('gift_codes').execute()
}
