import { createContext } from 'preact'
import { useContext } from 'preact/hooks'
import { DEFAULT_GAME, type GameItem } from '../games'

/** The game the console addresses, the games the operator may switch to, and the switch itself. */
export interface GameChoice {
  /** The chosen game's id. */
  game: string
  /** Its name (its id until the list of games has loaded). */
  name: string
  /** The games the operator holds a role in; undefined while loading or when the server lists none. */
  games: GameItem[] | undefined
  /** Switches to `id`: the page shows that game's data. */
  choose: (id: string) => void
  /** Reads the list of games again (after one is created, renamed or deleted). */
  reloadGames: () => void
}

export const GameContext = createContext<GameChoice>({
  game: DEFAULT_GAME,
  name: DEFAULT_GAME,
  games: undefined,
  choose: () => {},
  reloadGames: () => {},
})

/** The chosen game, for every page below the shell. */
export function useGame(): GameChoice {
  return useContext(GameContext)
}
