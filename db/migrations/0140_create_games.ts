import type { Kysely } from 'kysely'

/**
 * The games one server holds (contract §14) and their app keys, kept in the default game's database,
 * which is also the server's: every instance reads them into memory (platform/games/). A key is stored
 * as the SHA-256 of its secret, with the secret's first 8 characters to recognise it by. The audit log
 * A game being erased keeps its row, with `deleted_at`, until its database is gone: a delete that
 * stopped half-way is finished by the next. The audit log records the game each write was for (`game_id`; entries written before games existed were all the
 * default's, and read as such).
 *
 * Every game's database runs every migration, so a game's own database holds these tables too,
 * empty: only the default's are read.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('games')
    .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
    .addColumn('name', 'varchar(100)', (c) => c.notNull())
    .addColumn('settings', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint')
    .execute()
  await db.schema
    .createTable('game_keys')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('game_id', 'varchar(32)', (c) => c.notNull().references('games.id').onDelete('cascade'))
    .addColumn('label', 'varchar(100)', (c) => c.notNull())
    .addColumn('prefix', 'varchar(8)', (c) => c.notNull())
    .addColumn('hash', 'char(64)', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .execute()
  await db.schema.createIndex('game_keys_game_idx').on('game_keys').columns(['game_id', 'created_at']).execute()
  await db.schema.alterTable('audit_log').addColumn('game_id', 'varchar(32)').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('audit_log').dropColumn('game_id').execute()
  await db.schema.dropTable('game_keys').execute()
  await db.schema.dropTable('games').execute()
}
