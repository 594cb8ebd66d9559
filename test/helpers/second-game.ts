import type { Test } from 'tap'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import type { Db } from '../../db/types.js'
import { MIGRATIONS } from '../../app.js'
import { createGameStore, gameSchema } from '../../db/games.js'
import { insertGame, updateGame } from '../../platform/games/store.js'
import { GameSettingsPatch } from '../../platform/games/settings.js'
import { dropMysqlDatabase } from '../../bench/mysql.js'
import { APP, serverUrl, type TestApp } from './app.js'

/**
 * A game besides `default` on a test's app: its row and first key, its database made by the app's
 * migrations, its own settings, and the app's copy of the games reloaded. On MySQL its database
 * (`DB_NAME__id`) is dropped when the test ends; on PostgreSQL its schema goes with the test's database.
 */
export async function addGame(
  t: Test,
  ctx: Pick<TestApp, 'app' | 'clock'>,
  id: string,
  settings: GameSettingsPatch = {},
) {
  const { app, clock } = ctx
  const { key } = await insertGame(app.db, id, `Game ${id}`, clock.now())
  if (app.config.DB_DRIVER === 'mysql') {
    const url = serverUrl('mysql')!
    t.teardown(() => dropMysqlDatabase(url, gameSchema(app.config, id)!))
  }
  await createGameStore(app.db, app.config, id, MIGRATIONS)
  await app.games.reload()
  await setSettings(ctx, id, settings)
  const call: TestApp['call'] = (o) =>
    app.inject({ ...o, url: `${APP}${o.url}`, headers: { 'x-api-key': key.key, ...o.headers } })
  return { key: key.key, call }
}

/** Replaces a game's own settings (what it leaves out takes the environment's) and reloads the games. */
export async function setSettings(
  ctx: Pick<TestApp, 'app' | 'clock'>,
  id: string,
  settings: GameSettingsPatch,
): Promise<void> {
  // A change sets what it names and keeps the rest: every field it leaves out is reset (null).
  const reset = Object.fromEntries(Object.keys(GameSettingsPatch.properties).map((name) => [name, null]))
  await updateGame(ctx.app.db, id, { settings: { ...reset, ...settings } }, ctx.clock.now())
  await ctx.app.games.reload()
}

export interface SecondGame {
  id: string
  /** Its first app key's secret. */
  key: string
  /** Its database (the app's handle). */
  db: Db
  /** An app request with its key. */
  call(options: InjectOptions & { url: string }): Promise<LightMyRequestResponse>
}

/**
 * Adds the game `id` to the app's server, made as the admin API makes one, and answers its key, its
 * handle and a caller (its settings the environment's).
 */
export async function makeGame(ctx: TestApp, id: string, name = id): Promise<SecondGame> {
  const { app } = ctx
  const { key } = await insertGame(app.db, id, name, ctx.clock.now())
  await createGameStore(app.db, app.config, id, MIGRATIONS)
  await app.games.reload()
  const game = app.games.get(id)
  if (!game) throw new Error(`the game ${id} was not loaded`)
  return {
    id,
    key: key.key,
    db: game.db,
    call: (o) => app.inject({ ...o, url: `${APP}${o.url}`, headers: { 'x-api-key': key.key, ...o.headers } }),
  }
}
