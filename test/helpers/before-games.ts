import type { Kysely } from 'kysely'
import { createDb } from '../../db/index.js'
import { down as removeGames } from '../../db/migrations/0140_create_games.js'
import { down as removeRoles } from '../../features/operators/migrations/0141_operator_roles_per_game.js'
import { testConfig } from './app.js'

/**
 * Makes a migrated database as the build before games (contract §14) left it: the games migration and
 * the operators' roles per game taken back (their tables and the audit log's game column gone, their
 * records forgotten), so that the next start upgrades it.
 */
export async function asBeforeGames(dbEnv: Record<string, string>): Promise<void> {
  const db = createDb(testConfig(dbEnv)) as unknown as Kysely<any>
  try {
    await removeRoles(db)
    await removeGames(db)
    await db
      .deleteFrom('kysely_migration')
      .where('name', 'in', ['0140_create_games', '0141_operator_roles_per_game'])
      .execute()
  } finally {
    await db.destroy()
  }
}
