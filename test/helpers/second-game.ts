// A game beside `default`, made as the admin API will make one: its row and first key (platform/games/
// store.ts), its database migrated (db/games.ts), the app's copy of the games reloaded.
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { MIGRATIONS } from '../../app.js'
import { createGameStore } from '../../db/games.js'
import { insertGame } from '../../platform/games/store.js'
import type { Db } from '../../db/types.js'
import { APP, type TestApp } from './app.js'

export interface SecondGame {
  id: string
  /** Its first app key's secret. */
  key: string
  /** Its database (the app's handle). */
  db: Db
  /** An app request with its key. */
  call(options: InjectOptions & { url: string }): Promise<LightMyRequestResponse>
}

/** Adds the game `id` to the app's server and answers its key, its handle and a caller. */
export async function addGame(ctx: TestApp, id: string, name = id): Promise<SecondGame> {
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
