import { sql, type Kysely } from 'kysely'
import { engineOf } from '../../../db/engines/index.js'

export async function up(db: Kysely<any>): Promise<void> {
  if (engineOf(db).name === 'mysql') {
    // Tables inherit the database default: make it utf8mb4 even where the server default is not.
    await sql`ALTER DATABASE CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`.execute(db)
  }
  await db.schema
    .createTable('users')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('username', 'varchar(50)', (c) => c.notNull())
    .addColumn('email', 'varchar(254)')
    .addColumn('is_anonymous', 'integer', (c) => c.notNull())
    .addColumn('is_verified', 'integer', (c) => c.notNull())
    .addColumn('anonymous_token_hash', 'char(64)', (c) => c.unique())
    .addColumn('banned_at', 'bigint')
    .addColumn('ban_reason', 'varchar(500)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('users_username_idx').on('users').column('username').execute()
  await db.schema.createIndex('users_email_idx').on('users').column('email').execute()
  await db.schema.createIndex('users_created_idx').on('users').columns(['created_at', 'id']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('users').execute()
}
