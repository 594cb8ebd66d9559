import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import type { Db } from '../../db/types.js'
import { createGameStore } from '../../db/games.js'
import type { Game } from '../../platform/games/registry.js'
import { insertGame, updateGame } from '../../platform/games/store.js'
import { GameSettingsPatch } from '../../platform/games/settings.js'
import { ADMIN, ADMIN_KEY, APP, type TestApp } from './app.js'

/** A game a test added beside `default`, with what its requests and its checks need. */
export interface AddedGame {
  id: string
  /** Its first app key's secret. */
  key: string
  /** The app's copy of it (its settings in force, its handle). */
  game: Game
  /** Its database (the app's handle). */
  db: Db
  /** An app request with its key. */
  call(options: InjectOptions & { url: string }): Promise<LightMyRequestResponse>
  /** An admin request under its path (`/api/v1/admin/games/{id}/…`) with the admin key. */
  admin(options: InjectOptions & { url: string }): Promise<LightMyRequestResponse>
}

/**
 * Adds the game `id` to the app's server as the server owner does: its row and first key, its
 * database made by the app's migrations, its own settings (`settings`; what it leaves out takes the
 * environment's), then the app's copy of the games reloaded (the app is not readied). Its database
 * goes with the test's: the test's SQLite folder is removed, a MySQL test database is dropped with
 * its games' databases (`dropMysqlDatabase`), a PostgreSQL game's schema is in the test's database.
 */
export async function addGame(
  ctx: Pick<TestApp, 'app'>,
  id: string,
  options: { name?: string; settings?: GameSettingsPatch } = {},
): Promise<AddedGame> {
  const { app } = ctx
  const { key } = await insertGame(app.db, id, options.name ?? `Game ${id}`, app.clock.now())
  await createGameStore(app.db, app.config, id, app.games.migrations)
  if (options.settings) await updateGame(app.db, id, { settings: options.settings }, app.clock.now())
  await app.games.reload()
  const game = app.games.get(id)
  if (!game) throw new Error(`the game '${id}' was not loaded`)
  return {
    id,
    key: key.key,
    game,
    db: game.db,
    call: (o) => app.inject({ ...o, url: `${APP}${o.url}`, headers: { 'x-api-key': key.key, ...o.headers } }),
    admin: (o) =>
      app.inject({ ...o, url: `${ADMIN}/games/${id}${o.url}`, headers: { 'x-admin-key': ADMIN_KEY, ...o.headers } }),
  }
}

/** Replaces a game's own settings (what it leaves out takes the environment's) and reloads the games. */
export async function setSettings(ctx: Pick<TestApp, 'app'>, id: string, settings: GameSettingsPatch): Promise<void> {
  // A change sets what it names and keeps the rest: every field it leaves out is reset (null).
  const reset = Object.fromEntries(Object.keys(GameSettingsPatch.properties).map((name) => [name, null]))
  await updateGame(ctx.app.db, id, { settings: { ...reset, ...settings } }, ctx.app.clock.now())
  await ctx.app.games.reload()
}
