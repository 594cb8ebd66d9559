import type { Config } from '../../config.js'
import type { Db } from '../../db/types.js'
import { createGameStore, DEFAULT_GAME, dropGameStore, gameStoreProblem } from '../../db/games.js'
import type { GameRegistry } from '../../platform/games/registry.js'
import { effectiveSettings, environmentSettings, type GameSettingsChange } from '../../platform/games/settings.js'
import type { GameSettingsPatch } from '../../platform/games/settings.js'
import {
  createKey,
  findGame,
  forgetGame,
  insertGame,
  listKeys,
  markGameDeleted,
  revokeKey,
  updateGame,
} from '../../platform/games/store.js'
import { AppError, badRequest } from '../../platform/core/errors.js'
import { toIso } from '../../platform/core/clock.js'
import type { Role } from '../../platform/security/roles.js'
import { playerCount } from '../users/service.js'
import { activeToday } from '../analytics/service.js'
import { crashStats } from '../crash-reporting/service.js'
import type { GameBody, GameSettingsBody } from './schemas.js'

/**
 * The games of the server, their keys and settings (contract §14), over platform/games/store.ts (which
 * owns the `games` and `game_keys` tables) and db/games.ts (each game's database). Every write takes
 * `db`, the request's transaction in the server's database, so its audit entry commits with it; what
 * must follow a commit (the registry's reload, a database's drop) is the caller's to run after it.
 */

/** A game's size, for the server owner's list: read from the game's own database through its owners. */
export interface GameStats {
  players: number
  activeToday: number
  crashFreeRate: number | null
}

/** Players, players active today and the crash-free session rate of the game whose database is `db`. */
export async function gameStats(db: Db, now: number): Promise<GameStats> {
  const [players, active, crashes] = await Promise.all([
    playerCount(db),
    activeToday(db, now),
    crashStats(db, undefined),
  ])
  return { players, activeToday: active, crashFreeRate: crashes.crashFreeRate }
}

/** The games `roleOf` gives a role in, `default` first, each with that role and, asked, its stats. */
export async function listGames(
  games: GameRegistry,
  roleOf: (gameId: string) => Role | undefined,
  options: { stats: boolean; now: number },
) {
  const items = []
  for (const game of games.list()) {
    const role = roleOf(game.id)
    if (!role) continue
    const row = { id: game.id, name: game.name, createdAt: toIso(game.createdAt), role }
    items.push(options.stats ? { ...row, ...(await gameStats(game.db, options.now)) } : row)
  }
  return { items, nextCursor: null }
}

/**
 * Makes a new game's database before its row exists (outside any transaction: it runs the
 * migrations on a connection of its own), so a crash between the two leaves no visible half-made
 * game, and a later create of the same id finishes it. 400 for an id the database server cannot name,
 * 409 for a game this instance knows already.
 */
export async function prepareGameStore(games: GameRegistry, config: Config, gameId: string): Promise<void> {
  const problem = gameStoreProblem(config, gameId)
  if (problem) throw badRequest(`The id cannot be used: ${problem}`, '/id')
  if (games.get(gameId)) throw conflict(gameId)
  await createGameStore(games.default.db, config, gameId, games.migrations)
}

const conflict = (gameId: string) =>
  new AppError(409, 'CONFLICT', `A game '${gameId}' exists already: choose another id`)

/** Adds the game's row and its first key (the secret answered once); its database was made first. */
export async function createGame(db: Db, gameId: string, name: string, now: number) {
  const { game, key } = await insertGame(db, gameId, name, now)
  return { ...game, key }
}

/** A game's row; 404 GAME_NOT_FOUND. */
export async function readGame(db: Db, gameId: string): Promise<GameBody> {
  const { id, name, createdAt } = await findGame(db, gameId)
  return { id, name, createdAt }
}

/** Renames a game. */
export async function renameGame(db: Db, gameId: string, name: string, now: number): Promise<GameBody> {
  const { id, createdAt } = await updateGame(db, gameId, { name }, now)
  return { id, name, createdAt }
}

/**
 * Begins a game's erasure (contract §14): `default` is never erased (409), `confirm` must repeat the
 * id (400). From this commit the game is gone for every instance; `finishErasure` follows the commit.
 */
export async function beginErasure(db: Db, gameId: string, confirm: string | undefined, now: number): Promise<void> {
  if (gameId === DEFAULT_GAME) {
    throw new AppError(409, 'CONFLICT', 'The default game cannot be deleted: it is the server’s own')
  }
  if (confirm !== gameId) {
    throw badRequest(
      `Erasing a game erases all its data for good: send { "confirm": "${gameId}" } to do it`,
      '/confirm',
    )
  }
  await markGameDeleted(db, gameId, now)
}

/**
 * Ends an erasure once its mark has committed: the copy reloaded (which lets the game's workers,
 * caches and handle go), its database dropped, its row forgotten. A failure leaves the mark, and the
 * next DELETE or start finishes it (platform/games/index.ts).
 */
export async function finishErasure(games: GameRegistry, config: Config, gameId: string): Promise<void> {
  await games.reload()
  await dropGameStore(games.default.db, config, gameId)
  await forgetGame(games.default.db, gameId)
}

/** The game's keys, newest first, revoked ones included. */
export async function gameKeys(db: Db, gameId: string) {
  return { items: await listKeys(db, gameId), nextCursor: null }
}

/** A new key (its secret answered once). */
export async function addKey(db: Db, gameId: string, label: string, now: number) {
  return createKey(db, gameId, label, now)
}

/** Revokes a key; the game's last live key is 409 (`default` keeps API_KEY besides). */
export async function dropKey(db: Db, gameId: string, keyId: string, now: number) {
  return revokeKey(db, gameId, keyId, now, gameId === DEFAULT_GAME)
}

/** A game's settings in force, and which of them it set itself. */
export function settingsView(config: Config, own: GameSettingsPatch): GameSettingsBody {
  const settings = effectiveSettings(environmentSettings(config), own)
  const overridden = Object.keys(settings).filter((name) => Object.hasOwn(own, name))
  return { ...settings, overridden }
}

/** A game's settings, read from the server's database (not this instance's copy, which may lag). */
export async function readSettings(db: Db, config: Config, gameId: string): Promise<GameSettingsBody> {
  return settingsView(config, (await findGame(db, gameId)).settings)
}

/** Changes some of a game's settings (null: back to the environment's value). */
export async function changeSettings(
  db: Db,
  config: Config,
  gameId: string,
  change: GameSettingsChange,
  now: number,
): Promise<GameSettingsBody> {
  return settingsView(config, (await updateGame(db, gameId, { settings: change }, now)).settings)
}
