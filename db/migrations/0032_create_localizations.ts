import { MysqlAdapter, sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  const mysql = db.getExecutor().adapter instanceof MysqlAdapter
  await db.schema
    .createTable('localizations')
    // The canonical BCP 47 form (`pt-BR`): one spelling per language, so the default collation is fine.
    .addColumn('language', 'varchar(35)', (c) => c.notNull())
    // Keys are case-sensitive, as in remote config.
    .addColumn(
      'localization_key',
      mysql ? sql`varchar(128) character set utf8mb4 collate utf8mb4_bin` : 'varchar(128)',
      (c) => c.notNull(),
    )
    // Up to 16,384 characters: past MySQL TEXT's 65,535 bytes at four bytes a character.
    .addColumn('value', mysql ? sql`mediumtext` : 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('localizations_pk', ['language', 'localization_key'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('localizations').execute()
}
