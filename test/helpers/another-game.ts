import type { FastifyInstance } from 'fastify'
import { MIGRATIONS } from '../../app.js'
import { createGameStore } from '../../db/games.js'
import type { Game } from '../../platform/games/registry.js'
import type { GameSettingsPatch } from '../../platform/games/settings.js'
import { insertGame, updateGame } from '../../platform/games/store.js'

/**
 * A game besides `default`, as the server owner makes one: its row and first key, its database made
 * and migrated, the app's registry reloaded. Answers the game and its app key (the secret).
 */
export async function addGame(
  app: FastifyInstance,
  id: string,
  settings: GameSettingsPatch = {},
): Promise<{ game: Game; key: string }> {
  const now = app.clock.now()
  const made = await insertGame(app.db, id, `Game ${id}`, now)
  await createGameStore(app.db, app.config, id, MIGRATIONS)
  if (Object.keys(settings).length > 0) await updateGame(app.db, id, { settings }, now)
  await app.games.reload()
  const game = app.games.get(id)
  if (!game) throw new Error(`the game '${id}' was not loaded`)
  return { game, key: made.key.key }
}
