// The game an import writes into, when it is not `default`: the server's games are listed in the
// default game's database, and each game's data is in a database of its own (db/games.ts).
import { existsSync } from 'node:fs'
import type { Config } from '../../config.js'
import { createDb, isDatabaseServer } from '../../db/index.js'
import { migrateToLatest, pendingMigrations } from '../../db/migrate.js'
import { closeGameDb, createGameStore, openGameDb } from '../../db/games.js'
import type { Db } from '../../db/types.js'
import { MIGRATIONS } from '../../app.js'
import { readSnapshot } from '../../platform/games/store.js'

/** The database an import writes into, and what closes it (and removes a dry run's scratch copy). */
export interface Target {
  db: Db
  cleanup: () => Promise<void> | void
}

/** The message for a game the server does not have: how to make it. */
export function unknownGame(game: string): Error {
  return new Error(
    `The server has no game '${game}': create it first (POST /api/v1/admin/games with { "id": "${game}", ` +
      '"name": "…" }, as an owner; GET /api/v1/admin/games lists the games), then run the import again',
  )
}

/** Whether the default game's database lists the game (false when it has no list of games yet). */
async function known(base: Db, game: string): Promise<boolean> {
  try {
    return (await readSnapshot(base)).games.some((g) => g.id === game)
  } catch {
    // A database from before games (or not migrated at all) has no games but `default`.
    return false
  }
}

/**
 * The database of the game `game` (not `default`), which must exist on the server. An import brings
 * the default game's database and the game's to the latest migration first; a dry run migrates
 * nothing, and stops when the game's database is not migrated yet.
 */
export async function gameTarget(config: Config, dry: boolean, game: string): Promise<Target> {
  if (dry && !isDatabaseServer(config) && !existsSync(config.DB_PATH)) throw unknownGame(game)
  const base = createDb(config)
  try {
    if (!dry) await migrateToLatest(base, MIGRATIONS)
    if (!(await known(base, game))) throw unknownGame(game)
    if (!dry) await createGameStore(base, config, game, MIGRATIONS)
    const db = openGameDb(base, config, game)
    const pending = dry ? await pendingMigrations(db, MIGRATIONS).catch(() => ['all']) : []
    if (pending.length > 0) {
      await closeGameDb(db)
      throw new Error(
        `The database of the game ${game} is not migrated yet and a dry run writes nothing: run \`npm run migrate\` first`,
      )
    }
    return {
      db,
      cleanup: async () => {
        await closeGameDb(db)
        await base.destroy()
      },
    }
  } catch (error) {
    await base.destroy()
    throw error
  }
}
