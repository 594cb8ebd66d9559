import type { Kysely } from 'kysely'

/**
 * Roles per game (contract §14): an owner is one everywhere; any other operator holds a role in each
 * game named in `roles`, JSON `{ "<gameId>": "moderator" | "viewer" }`. The operators from before games
 * held their role in the one game there was, `default`, and keep it there. Owners' `roles` stay null.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('operators').addColumn('roles', 'text').execute()
  for (const role of ['moderator', 'viewer']) {
    await db
      .updateTable('operators')
      .set({ roles: JSON.stringify({ default: role }) })
      .where('role', '=', role)
      .execute()
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('operators').dropColumn('roles').execute()
}
