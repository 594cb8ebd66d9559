import type { FastifyInstance } from 'fastify'
import type { Game, PerGame } from './registry.js'

/**
 * What a feature runs in the background for each game (a delivery worker, a batched writer): made
 * through `app.games.scoped`, started once the app is ready (a game's made later starts at once),
 * stopped when its game goes or the app closes.
 */

/** Something that runs in the background between `start` and `stop`. */
export interface Background {
  start(): void
  stop(): Promise<void>
}

/** One value per game, and the value of a game still served (none for a game erased meanwhile). */
export interface BackgroundPerGame<T> extends PerGame<T> {
  /** The game's value, made if needed; undefined when the game is no longer one of the server's. */
  live(game: Game): T | undefined
}

/**
 * One `make(game)` per game, started with the app: `eager` makes it for every game when the registry
 * starts and for every game added later (a worker that must run without requests), else on first
 * use. `closed` runs once every value has stopped when the app closes (a shared transport's close).
 */
export function backgroundPerGame<T extends Background>(
  app: FastifyInstance,
  make: (game: Game) => T,
  options: { eager?: boolean; closed?: () => void } = {},
): BackgroundPerGame<T> {
  let ready = false
  const scope = app.games.scoped(
    (game) => {
      const value = make(game)
      if (ready) value.start()
      return value
    },
    { eager: options.eager ?? false, dispose: (value) => value.stop() },
  )
  app.addHook('onReady', async () => {
    ready = true
    for (const [, value] of scope.entries()) value.start()
  })
  app.addHook('onClose', async () => {
    ready = false
    await Promise.all(scope.entries().map(([, value]) => value.stop()))
    options.closed?.()
  })
  return {
    of: (game) => scope.of(game),
    entries: () => scope.entries(),
    live: (game) => (app.games.get(game.id) === game ? scope.of(game) : undefined),
  }
}

/**
 * A gauge's counts (by label value) summed over every game: one read per game's database, at once.
 * The server's totals, as before there were games.
 */
export async function countOverGames(
  games: readonly Game[],
  read: (db: Game['db']) => Promise<Record<string, number>>,
): Promise<Record<string, number>> {
  const counts = await Promise.all(games.map((game) => read(game.db)))
  const total: Record<string, number> = {}
  for (const one of counts) for (const [label, n] of Object.entries(one)) total[label] = (total[label] ?? 0) + n
  return total
}
