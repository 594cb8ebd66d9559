import type { Kysely } from 'kysely'
import { createDb } from '../../db/index.js'
import { MIGRATIONS } from '../../app.js'
import { testConfig } from './app.js'

/** The first migration of games (contract §14): it and every later one are what the build before games lacked. */
const GAMES_MIGRATION = '0140_create_games'

/**
 * Makes a migrated database as the build before games (contract §14) left it: the games migration
 * and every later one (the operators' roles per game, …) taken back, newest first (their tables and
 * columns gone, their records forgotten), so that the next start upgrades it.
 */
export async function asBeforeGames(dbEnv: Record<string, string>): Promise<void> {
  const db = createDb(testConfig(dbEnv)) as unknown as Kysely<any>
  const later = Object.keys(MIGRATIONS)
    .filter((name) => name >= GAMES_MIGRATION)
    .sort()
    .reverse()
  try {
    for (const name of later) await MIGRATIONS[name]!.down!(db)
    await db.deleteFrom('kysely_migration').where('name', 'in', later).execute()
  } finally {
    await db.destroy()
  }
}
