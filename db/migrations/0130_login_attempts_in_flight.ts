import type { Kysely } from 'kysely'

/**
 * A sign-in attempt is written down before its slow password check, so that parallel guesses cannot
 * all reach the check; `in_flight` tells such an attempt (1, its check still running) from a failure
 * (0). Only failures count toward a lock: a burst of correct sign-ins waits for a free slot instead
 * of locking the account.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('login_failures')
    .addColumn('in_flight', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('login_failures').dropColumn('in_flight').execute()
}
