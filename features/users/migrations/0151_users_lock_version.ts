import type { Kysely } from 'kysely'

/**
 * A counter on each player's row, moved on by `lockUser` (features/users/accounts.ts), the per-player
 * serialisation point of checks that count other rows (the e-mail quota): the lock is then a write,
 * which a Galera cluster certifies, so two such checks for one player through two nodes are ordered
 * as on one server. (A lock that leaves the row as it was stays on its node.) Added with a constant
 * default: a change of the table's definition only, on every engine, however many players there are.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('lock_version', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('lock_version').execute()
}
