import type { Kysely } from 'kysely'

/**
 * A counter on each sign-in lock row, moved on by every attempt that takes the row
 * (platform/security/login-lockout.ts, `reserveAttempt`): the take is then a write, which a Galera
 * cluster certifies, so two attempts on one key through two nodes are ordered as on one server, and
 * the failures counted under the row stay within the limit. (The row's `locked_until` means
 * something; this column means nothing else.) Added with a constant default: a change of the table's
 * definition only, on every engine.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('login_locks')
    .addColumn('lock_version', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('login_locks').dropColumn('lock_version').execute()
}
