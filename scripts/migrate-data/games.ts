// The games of a move: the default game's database lists the server's games (its `games` table, moved
// with it), and each other game's data is in a database of its own (db/games.ts), moved into the
// target engine's database of the same game.
import { sql } from 'kysely'
import type { Config } from '../../config.js'
import { createDb, MIGRATION_QUERY_TIMEOUT_MS } from '../../db/index.js'
import { createGameStore, DEFAULT_GAME } from '../../db/games.js'
import { MIGRATIONS } from '../../app.js'
import type { Store } from './stores.js'

/** The live games other than `default` that the default game's database lists, by id (none before games). */
export async function gamesOf(store: Store): Promise<string[]> {
  if (!(await store.tables()).includes('games')) return []
  const shape = await store.shape('games')
  const id = shape.columns.indexOf('id')
  const deleted = shape.columns.indexOf('deleted_at')
  const games: string[] = []
  let after: Array<string | number | bigint | Buffer | null> | undefined
  for (;;) {
    const rows = await store.page('games', shape, after, 1000)
    for (const row of rows) {
      // A game whose erasure stopped half-way is not moved: the target's first start finishes erasing it.
      if (row[deleted] === null && row[id] !== DEFAULT_GAME) games.push(String(row[id]))
    }
    if (rows.length < 1000) return games
    after = shape.primaryKey.map((k) => rows[rows.length - 1]![shape.columns.indexOf(k)]!)
  }
}

/** Makes the target's database of a game (or finds it made) and runs the migrations on it, as a server would. */
export async function createTargetGame(settings: Partial<Config>, game: string): Promise<void> {
  const config = { DB_POOL_SIZE: 2, ...settings, DB_QUERY_TIMEOUT_MS: MIGRATION_QUERY_TIMEOUT_MS } as Config
  const base = createDb(config)
  try {
    // A first statement on the handle: Kysely closes only a handle that was used, and a SQLite file
    // opened and never used would stay open (createGameStore uses it on the servers only).
    await sql`select 1`.execute(base)
    await createGameStore(base, config, game, MIGRATIONS)
  } finally {
    await base.destroy()
  }
}
