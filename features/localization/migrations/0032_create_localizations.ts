import type { Kysely } from 'kysely'
import { engineOf } from '../../../db/engines/index.js'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('localizations')
    // The canonical BCP 47 form (`pt-BR`): one spelling per language, so the default collation is fine.
    .addColumn('language', 'varchar(35)', (c) => c.notNull())
    // Keys are case-sensitive, as in remote config.
    .addColumn('localization_key', engineOf(db).types.key(128), (c) => c.notNull())
    // Up to 16,384 characters: past MySQL TEXT's 65,535 bytes at four bytes a character.
    .addColumn('value', engineOf(db).types.longText, (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('localizations_pk', ['language', 'localization_key'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('localizations').execute()
}
