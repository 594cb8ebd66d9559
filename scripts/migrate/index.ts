// `npm run migrate`: brings every game's database the server is configured for (same .env and
// environment) to the latest migration, the platform's and every feature's (app.ts MIGRATIONS), and
// finishes an erasure of a game that stopped half-way, then exits.
import { pathToFileURL } from 'node:url'
import { MIGRATIONS } from '../../app.js'
import { describeConfigError, loadConfig, type Config } from '../../config.js'
import { createDb, MIGRATION_QUERY_TIMEOUT_MS } from '../../db/index.js'
import { migrateToLatest } from '../../db/migrate.js'
import { createGameStore, DEFAULT_GAME, dropGameStore } from '../../db/games.js'
import type { Db } from '../../db/types.js'
import { checkDatabase, explainDbError } from '../../db/startup-check.js'
import { erasing, forgetGame, readSnapshot } from '../../platform/games/store.js'

/** Where the command writes: the process's streams, or a test's buffers. */
export interface Output {
  out: { write(text: string): unknown }
}

/**
 * Migrates the default game's database (which holds the games' list), finishes the erasures that
 * began and did not end (the game's database dropped, then its row), then migrates every other game's
 * database in turn, each game's line naming it.
 */
export async function migrateEveryGame(db: Db, config: Config, io: Output): Promise<void> {
  const applied = await migrateToLatest(db, MIGRATIONS).catch((error) => {
    throw explainDbError(error, config)
  })
  // The default game's lines are those of the command before games, which scripts may read.
  io.out.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Database is up to date\n')
  for (const id of await erasing(db)) {
    await dropGameStore(db, config, id)
    await forgetGame(db, id)
    io.out.write(`Game ${id}: the erasure that stopped half-way is finished (its database dropped)\n`)
  }
  for (const game of (await readSnapshot(db)).games) {
    if (game.id === DEFAULT_GAME) continue
    const names = await createGameStore(db, config, game.id, MIGRATIONS).catch((error: Error) => {
      throw new Error(`game ${game.id}: ${(explainDbError(error, config) as Error).message}`, { cause: error })
    })
    io.out.write(names.length ? `Game ${game.id}: applied ${names.join(', ')}\n` : `Game ${game.id}: up to date\n`)
  }
}

async function main() {
  let config
  try {
    config = loadConfig(process.env, { envFile: '.env' })
  } catch (error) {
    process.stderr.write(`${describeConfigError(error as Error)}\n`)
    process.exit(1)
  }
  for (const problem of await checkDatabase(config)) process.stderr.write(`${problem}\n`)
  const db = createDb({ ...config, DB_QUERY_TIMEOUT_MS: MIGRATION_QUERY_TIMEOUT_MS })
  try {
    await migrateEveryGame(db, config, { out: process.stdout })
  } finally {
    await db.destroy()
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error) => {
    process.stderr.write(`${(error as Error).message}\n`)
    process.exit(1)
  })
}
