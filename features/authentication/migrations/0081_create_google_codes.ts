import type { Kysely } from 'kysely'

/**
 * Google authorization codes already exchanged, by SHA-256 of the code, for 10 minutes: the checked
 * identity, or the token response whose id_token could not be checked yet. In the database so that
 * every instance and worker sees them (the SDKs' sign-in then sign-up may reach different ones).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('google_codes')
    .addColumn('code_hash', 'char(64)', (c) => c.primaryKey())
    .addColumn('kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('google_codes_expires_idx').on('google_codes').column('expires_at').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('google_codes').execute()
}
