import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { transformWithEsbuild } from 'vite'

/**
 * The console's game choice (console/src/games.ts), the module the API client asks for every
 * request's path: loaded on its own (it imports types only), as the bundle runs it.
 */

const ROOT = new URL('../../../', import.meta.url).pathname
type Role = 'owner' | 'moderator' | 'viewer'
type Store = {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
  removeItem(key: string): void
}
/** The module's exports as used here (the server's build leaves console/ out, so its types are restated). */
interface GamesModule {
  GAME_KEY: string
  gamePath(path: string, game: string): string
  readGame(storage: Store | undefined): string
  writeGame(storage: Store | undefined, game: string): void
  roleIn(operator: { role: Role; roles?: Record<string, Role> }, game: string): Role
  settleGame(chosen: string, games: Array<{ id: string }>): string
}

async function load(t: Test): Promise<GamesModule> {
  const source = readFileSync(join(ROOT, 'console/src/games.ts'), 'utf8')
  const { code } = await transformWithEsbuild(source, 'games.ts', { loader: 'ts', format: 'esm' })
  const dir = mkdtempSync(join(tmpdir(), 'outpost-console-games-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'games.mjs'), code)
  return (await import(join(dir, 'games.mjs'))) as GamesModule
}

/** A Storage stand-in: a Map, or one that refuses every call (a private window's). */
function memory(refuse = false) {
  const items = new Map<string, string>()
  const no = () => {
    throw new Error('SecurityError: storage refused')
  }
  return {
    items,
    getItem: (key: string) => (refuse ? no() : (items.get(key) ?? null)),
    setItem: (key: string, value: string) => (refuse ? no() : void items.set(key, value)),
    removeItem: (key: string) => (refuse ? no() : void items.delete(key)),
  }
}

t.test(
  "a game-scoped path goes under the chosen game's prefix; default's and the server-wide ones never",
  async (t) => {
    const { gamePath } = await load(t)
    t.equal(gamePath('/users?limit=25', 'moon'), '/games/moon/users?limit=25')
    t.equal(gamePath('/leaderboards/cup/entries', 'moon'), '/games/moon/leaderboards/cup/entries')
    t.equal(gamePath('/analytics/counts', 'moon'), '/games/moon/analytics/counts')
    t.equal(gamePath('/audit?actor=ada', 'moon'), '/games/moon/audit?actor=ada', "the audit log is the game's")
    t.equal(gamePath('/webhooks', 'moon'), '/games/moon/webhooks')
    t.equal(gamePath('/users', 'default'), '/users', 'default: the path without a prefix, as before games')
    t.equal(gamePath('/games/moon/keys', 'default'), '/games/moon/keys')
    for (const path of ['/session', '/session/password', '/operators', '/operators/ada', '/games', '/games?stats=true'])
      t.equal(gamePath(path, 'moon'), path, `${path} is server-wide`)
    t.equal(gamePath('/games/moon/settings', 'moon'), '/games/moon/settings', 'a game route names its game itself')
    t.equal(gamePath('/settings', 'moon'), '/settings', "the environment's settings: server-wide")
    t.equal(gamePath('/sessions-report', 'moon'), '/games/moon/sessions-report', 'only the whole segment /session')
    t.equal(gamePath('/users', 'a b/c'), '/games/a%20b%2Fc/users', 'the id encoded')
  },
)

t.test('the choice is kept in storage, default when none or when storage refuses', async (t) => {
  const { readGame, writeGame, GAME_KEY } = await load(t)
  const store = memory()
  t.equal(readGame(store), 'default')
  t.equal(readGame(undefined), 'default')
  writeGame(store, 'moon')
  t.equal(store.items.get(GAME_KEY), 'moon')
  t.equal(readGame(store), 'moon')
  writeGame(store, 'default')
  t.notOk(store.items.has(GAME_KEY), 'default is the absence of a choice')
  t.equal(readGame(store), 'default')
  const refusing = memory(true)
  t.doesNotThrow(() => writeGame(refusing, 'moon'))
  t.equal(readGame(refusing), 'default')
})

t.test("an operator's role in a game; the game to address once the list is known", async (t) => {
  const { roleIn, settleGame } = await load(t)
  t.equal(roleIn({ role: 'owner' }, 'moon'), 'owner')
  t.equal(roleIn({ role: 'owner', roles: { moon: 'viewer' } }, 'moon'), 'owner', 'an owner is owner everywhere')
  const mo = { role: 'moderator' as const, roles: { default: 'moderator' as const, moon: 'viewer' as const } }
  t.equal(roleIn(mo, 'moon'), 'viewer')
  t.equal(roleIn(mo, 'default'), 'moderator')
  t.equal(roleIn({ role: 'viewer' }, 'moon'), 'viewer', 'a session without roles: its role')
  const games = [{ id: 'default' }, { id: 'moon' }]
  t.equal(settleGame('moon', games), 'moon')
  t.equal(settleGame('gone', games), 'default', 'a game no longer listed: default')
  t.equal(settleGame('gone', [{ id: 'moon' }, { id: 'sun' }]), 'moon', 'no default listed: the first')
  t.equal(settleGame('moon', []), 'moon', 'an empty list keeps the choice')
})
