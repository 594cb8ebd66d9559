// Which game the console addresses (contract §14): the operator's choice, kept in the browser, and the
// admin path a request takes for it. No imports but types, so a test can load this file on its own.
import type { Role } from '../../platform/security/roles'

/** The game every server has: its admin routes need no prefix. */
export const DEFAULT_GAME = 'default'

/** Where the browser keeps the chosen game between visits. */
export const GAME_KEY = 'outpost-console-game'

/**
 * The server-wide admin routes, the same for every game: never prefixed. `/settings` is the server's
 * own settings (the environment's); under a game's prefix that path is the game's settings route.
 */
const SERVER_WIDE = /^\/(session|operators|games|settings)(\/|\?|$)/

/**
 * The admin path of `path` for `game`: `/games/{game}/…` for a game other than `default`, the path
 * as it is for `default` (its routes without the prefix) and for the server-wide routes.
 */
export function gamePath(path: string, game: string): string {
  if (game === DEFAULT_GAME || SERVER_WIDE.test(path)) return path
  return `/games/${encodeURIComponent(game)}${path}`
}

/** The game the browser remembers, or `default` (also when storage is refused, as in private windows). */
export function readGame(storage: Pick<Storage, 'getItem'> | undefined): string {
  try {
    const value = storage?.getItem(GAME_KEY)
    return value ? value : DEFAULT_GAME
  } catch {
    return DEFAULT_GAME
  }
}

/** Remembers the chosen game; a refused storage keeps it for this page only. */
export function writeGame(storage: Pick<Storage, 'setItem' | 'removeItem'> | undefined, game: string) {
  try {
    if (game === DEFAULT_GAME) storage?.removeItem(GAME_KEY)
    else storage?.setItem(GAME_KEY, game)
  } catch {
    // Nothing to do: the choice lasts until the page is closed.
  }
}

/** A game as the switcher lists it (`GET /games`): only games the operator holds a role in. */
export interface GameItem {
  id: string
  name: string
  createdAt: string
  role: Role
}

/** A game with the figures `GET /games?stats=true` adds (the crash-free rate is 0 to 1, or null). */
export interface GameStats extends GameItem {
  players: number
  activeToday: number
  crashFreeRate: number | null
}

/** The signed-in operator as the session answers it: `roles` holds a non-owner's role in each game. */
export interface RolesInGames {
  role: Role
  roles?: Record<string, Role>
}

/** The operator's role in `game`: an owner's everywhere; a non-owner's from `roles` (the session's role without it). */
export function roleIn(operator: RolesInGames, game: string): Role {
  if (operator.role === 'owner') return 'owner'
  return operator.roles?.[game] ?? operator.role
}

/**
 * The game to address once the list is known: the chosen one when the operator may open it, else
 * `default`, else the first listed. An empty list (an older server, or no games) keeps the choice.
 */
export function settleGame(chosen: string, games: ReadonlyArray<{ id: string }>): string {
  if (games.length === 0 || games.some((g) => g.id === chosen)) return chosen
  return games.some((g) => g.id === DEFAULT_GAME) ? DEFAULT_GAME : games[0]!.id
}
