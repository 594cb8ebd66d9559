import { MysqlAdapter, sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  const mysql = db.getExecutor().adapter instanceof MysqlAdapter
  await db.schema
    .createTable('remote_configs')
    // Keys are case-sensitive by contract: `Speed` and `speed` are two keys (binary collation on MySQL).
    .addColumn(
      'config_key',
      mysql ? sql`varchar(128) character set utf8mb4 collate utf8mb4_bin` : 'varchar(128)',
      (c) => c.primaryKey(),
    )
    // Up to 65,536 characters: more than MySQL TEXT's 64 KiB of bytes once characters take four.
    .addColumn('config_value', mysql ? sql`mediumtext` : 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('remote_configs_updated_idx')
    .on('remote_configs')
    .columns(['updated_at', 'config_key'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('remote_configs').execute()
}
