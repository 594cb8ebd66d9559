import type { Config } from '../../config.js'
import type { Db } from '../../db/types.js'
import type { DbObserver } from '../../db/config.js'
import type { Migrations } from '../../db/migrate.js'
import { readChangeCounter } from '../../db/change-counters.js'
import { closeGameDb, DEFAULT_GAME, openGameDb } from '../../db/games.js'
import { hashToken, secretChecker } from '../security/secrets.js'
import { effectiveSettings, environmentSettings, type GameSettings, type GameSettingsPatch } from './settings.js'
import { ensureDefaultGame, readSnapshot, recordKeyUse, type GamesSnapshot } from './store.js'

/**
 * Each instance's copy of the server's games and their keys (contract §14), so that deciding a
 * request's game costs no database read: the app key is looked up in memory. The copy is reloaded
 * when the `games` change counter moves, which every instance reads every WATCH_MS: a key revoked on
 * one instance is refused by all within a second. A game's database handle and whatever a feature
 * keeps per game (`scoped`) live as long as the game does in the copy.
 */

/** How often an instance reads the `games` change counter (one primary-key read). */
export const WATCH_MS = 400
/** How often the keys' last use is written back (one UPDATE per key used meanwhile). */
const KEY_USE_FLUSH_MS = 60_000
/** Presented keys remembered with their game, so that a known key costs no hash per request. */
const KNOWN_KEYS_MAX = 10_000

/** A game, as a request and a feature see it. */
export interface Game {
  readonly id: string
  readonly name: string
  readonly createdAt: number
  /** Its settings in force: its own, else the environment's. */
  readonly settings: GameSettings
  /** Its own settings only (what the admin API shows as changed). */
  readonly own: GameSettingsPatch
  /** Its database (opened on first use). */
  readonly db: Db
  /**
   * When this instance last answered one of its requests, app or admin (the clock's ms; 0 before the
   * first): the background work of a game nobody plays rests (platform/jobs/runner.ts).
   */
  readonly lastRequestAt: number
}

class GameEntry implements Game {
  private handle: Db | undefined
  lastRequestAt = 0
  constructor(
    readonly id: string,
    public name: string,
    public createdAt: number,
    public settings: GameSettings,
    public own: GameSettingsPatch,
    private readonly open: (id: string) => Db,
  ) {}

  get db(): Db {
    return (this.handle ??= this.open(this.id))
  }

  /** The handle if it was opened. */
  get opened(): Db | undefined {
    return this.handle
  }
}

/** What a feature keeps for each game (a cache, a worker), made on first use and let go with the game. */
export interface PerGame<T> {
  of(game: Game): T
  /** The values made so far, with their game. */
  entries(): Array<[Game, T]>
}

interface Scope {
  make(game: Game): unknown
  dispose?(value: unknown): Promise<void> | void
  eager: boolean
  values: Map<string, unknown>
}

/** The server's games in memory; see the module comment. */
export class GameRegistry {
  private games = new Map<string, GameEntry>()
  private byHash = new Map<string, { gameId: string; keyId: string }>()
  private known = new Map<string, { game: GameEntry; keyId: string | null }>()
  private readonly scopes: Scope[] = []
  private readonly used = new Map<string, number>()
  private readonly isEnvKey: (value: string) => boolean
  private version = -1
  private watch: NodeJS.Timeout | undefined
  private flush: NodeJS.Timeout | undefined
  private reloading: Promise<void> | null = null
  private defaultRow = false
  private readonly defaults: GameSettings

  constructor(
    private readonly control: Db,
    private readonly config: Config,
    private readonly clock: { now(): number },
    private readonly observer: DbObserver | undefined,
    private readonly log: { warn(details: object, message: string): void },
    /** Every migration a game's database is made with (createGameStore). */
    readonly migrations: Migrations,
  ) {
    this.isEnvKey = secretChecker(config.API_KEY)
    this.defaults = environmentSettings(config)
    const entry = new GameEntry(DEFAULT_GAME, 'Default', 0, this.defaults, {}, () => control)
    this.games.set(DEFAULT_GAME, entry)
  }

  /** The game every database holds; un-prefixed admin routes and the health routes are its. */
  get default(): Game {
    return this.games.get(DEFAULT_GAME)!
  }

  /** A live game, or undefined. */
  get(id: string): Game | undefined {
    return this.games.get(id)
  }

  /** The databases of the games this instance has opened so far (listing opens none). */
  openedDbs(): Db[] {
    return [...this.games.values()].flatMap((game) => (game.opened ? [game.opened] : []))
  }

  /** Every live game, `default` first, then by id. */
  list(): Game[] {
    return [...this.games.values()].sort((a, b) =>
      a.id === DEFAULT_GAME ? -1 : b.id === DEFAULT_GAME ? 1 : a.id < b.id ? -1 : 1,
    )
  }

  /**
   * The game an app key belongs to, or undefined for an unknown or revoked key. API_KEY is a key of
   * `default`; the stored keys are looked up by their SHA-256, once per distinct key presented.
   */
  forKey(presented: string | string[] | undefined): Game | undefined {
    const value = Array.isArray(presented) ? presented[0] : presented
    if (typeof value !== 'string' || value.length === 0 || value.length > 256) return undefined
    const known = this.known.get(value)
    if (known) {
      if (known.keyId) this.used.set(known.keyId, this.clock.now())
      return known.game
    }
    let found: { game: GameEntry; keyId: string | null } | undefined
    if (this.isEnvKey(value)) found = { game: this.games.get(DEFAULT_GAME)!, keyId: null }
    else {
      const key = this.byHash.get(hashToken(value))
      const game = key && this.games.get(key.gameId)
      if (key && game) found = { game, keyId: key.keyId }
    }
    if (!found) return undefined
    if (this.known.size >= KNOWN_KEYS_MAX) this.known.clear()
    this.known.set(value, found)
    if (found.keyId) this.used.set(found.keyId, this.clock.now())
    return found.game
  }

  /** Notes that this instance has just answered a request of `game` (its `lastRequestAt`). */
  answered(game: Game): void {
    if (game instanceof GameEntry) game.lastRequestAt = this.clock.now()
  }

  /**
   * Something a feature keeps per game: `make` runs on a game's first `of` (or, `eager`, as soon
   * as the game is known, for workers that must run without requests), `dispose` when the game goes
   * or the app closes.
   */
  scoped<T>(
    make: (game: Game) => T,
    options: { dispose?: (value: T) => Promise<void> | void; eager?: boolean } = {},
  ): PerGame<T> {
    const scope: Scope = {
      make,
      dispose: options.dispose as Scope['dispose'],
      eager: options.eager ?? false,
      values: new Map(),
    }
    this.scopes.push(scope)
    if (scope.eager && this.watch) for (const game of this.games.values()) this.valueOf(scope, game)
    return {
      of: (game) => this.valueOf(scope, game) as T,
      entries: () =>
        [...scope.values].flatMap(([id, value]) => {
          const game = this.games.get(id)
          return game ? [[game, value as T] as [Game, T]] : []
        }),
    }
  }

  private valueOf(scope: Scope, game: Game): unknown {
    let value = scope.values.get(game.id)
    if (value === undefined && !scope.values.has(game.id)) {
      value = scope.make(game)
      scope.values.set(game.id, value)
    }
    return value
  }

  /**
   * Loads the copy and starts watching the change counter; eager scopes are made for every game. A
   * database that cannot be read at start (unreachable, not migrated yet) leaves `default` alone in
   * the copy, said in the log; the watch loads the rest once the database answers.
   */
  async start(): Promise<void> {
    await this.reload().catch((error: unknown) =>
      this.log.warn(
        { err: error },
        'the games could not be read at start: only the default game is served until the database answers ' +
          '(the games are read again every moment; see GET /health/ready)',
      ),
    )
    for (const scope of this.scopes) if (scope.eager) for (const game of this.games.values()) this.valueOf(scope, game)
    this.watch = setInterval(() => void this.check().catch(() => {}), WATCH_MS)
    this.watch.unref()
    this.flush = setInterval(() => void this.flushKeyUse(), KEY_USE_FLUSH_MS)
    this.flush.unref()
  }

  /** Stops reading the change counter (tests that count statements); `stop` does it too. */
  stopWatching(): void {
    clearInterval(this.watch)
  }

  /** Stops watching, writes back the keys' last use, lets every game's scoped values and handles go. */
  async stop(): Promise<void> {
    clearInterval(this.watch)
    clearInterval(this.flush)
    this.watch = undefined
    await this.reloading?.catch(() => {})
    await this.flushKeyUse()
    for (const game of [...this.games.values()]) await this.release(game, game.id !== DEFAULT_GAME)
  }

  /** Reads the change counter, and the games when it moved. */
  async check(): Promise<void> {
    if ((await readChangeCounter(this.control, 'games')) !== this.version) await this.reload()
  }

  /**
   * Reloads the games and keys now (after this instance's own write, so its answer already holds); a
   * game gone from the copy is let go (its workers stopped, its own handle closed) before it resolves.
   */
  reload(): Promise<void> {
    if (this.reloading) return this.reloading.then(() => this.reload())
    const run = (async () => {
      // The row of `default`, once: a database from before games gets it on its first read.
      if (!this.defaultRow) {
        await ensureDefaultGame(this.control, this.clock.now())
        this.defaultRow = true
      }
      const version = await readChangeCounter(this.control, 'games')
      const released = this.apply(await readSnapshot(this.control))
      this.version = version
      await Promise.all(released)
    })()
    this.reloading = run.finally(() => {
      this.reloading = null
    })
    return this.reloading
  }

  private apply(snapshot: GamesSnapshot): Array<Promise<void>> {
    const live = new Set(snapshot.games.map((g) => g.id))
    for (const row of snapshot.games) {
      const settings = effectiveSettings(this.defaults, row.settings)
      const entry = this.games.get(row.id)
      if (entry) {
        entry.name = row.name
        entry.createdAt = row.createdAt
        entry.settings = settings
        entry.own = row.settings
        continue
      }
      const added = new GameEntry(row.id, row.name, row.createdAt, settings, row.settings, (id) =>
        openGameDb(this.control, this.config, id, this.observer),
      )
      this.games.set(row.id, added)
      if (this.watch) for (const scope of this.scopes) if (scope.eager) this.valueOf(scope, added)
    }
    const gone = [...this.games.values()].filter((g) => g.id !== DEFAULT_GAME && !live.has(g.id))
    for (const game of gone) this.games.delete(game.id)
    this.byHash = new Map(snapshot.keys.map((k) => [k.hash, { gameId: k.gameId, keyId: k.id }]))
    this.known = new Map()
    return gone.map((game) => this.release(game, true))
  }

  /** Lets a game's scoped values go (workers stopped) and closes its own database handle. */
  async release(game: Game, closeHandle: boolean): Promise<void> {
    for (const scope of this.scopes) {
      if (!scope.values.has(game.id)) continue
      const value = scope.values.get(game.id)
      scope.values.delete(game.id)
      try {
        await scope.dispose?.(value)
      } catch (error) {
        this.log.warn({ err: error, game: game.id }, 'a game could not be let go cleanly')
      }
    }
    const entry = game as GameEntry
    const handle = entry.opened
    if (closeHandle && handle) {
      await closeGameDb(handle).catch((error: unknown) =>
        this.log.warn({ err: error, game: game.id }, 'a game’s database handle could not be closed'),
      )
    }
  }

  private async flushKeyUse() {
    if (!this.used.size) return
    const used = new Map(this.used)
    this.used.clear()
    await recordKeyUse(this.control, used).catch((error: unknown) =>
      this.log.warn({ err: error }, 'the keys’ last use could not be written; it is written with the next'),
    )
  }
}
