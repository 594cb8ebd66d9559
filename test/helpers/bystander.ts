import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import SQLite from 'better-sqlite3'
import type { FastifyInstance } from 'fastify'
import { createGameStore, gameFile } from '../../db/games.js'
import { insertGame } from '../../platform/games/store.js'

/**
 * The bystander: a second game, `bystander`, beside `default` on every SQLite test app, holding data
 * of its own in the tables the suite reads most (a player, a score on the board `default`, a remote
 * config key, a translation, a news item, a save, a gift code, feedback and a log line). The suite's
 * requests go to `default`, so a read that leaked another game's data would show it there and fail
 * an ordinary test (docs/several-games.md, "How games are kept apart").
 *
 * It is cheap: its database is made once per test process (a throwaway app migrates it and fills it
 * through the API, as a game's clients would) and copied into place for each app, then its row and
 * key are written before the app is ready; the registry reads the games when the app gets ready, so
 * nothing is reloaded and the test can still add routes.
 *
 * Left out: the MySQL and PostgreSQL legs (a game there is a database or schema that only the
 * migrations make, a few seconds per app instead of a file copy), a database not migrated at start
 * (MIGRATE_ON_START=false: a test of what the start does to it) and `:memory:`; `bystander: false`
 * in buildTestApp and TEST_BYSTANDER=off leave it out too.
 */

/** The bystander game's id. */
export const BYSTANDER = 'bystander'
/** The bystander player's name: seen in `default`, it leaked. */
export const BYSTANDER_PLAYER = 'Bystander Ghost'
/** The bystander player's score on the board `default`. */
export const BYSTANDER_SCORE = 7_777_777
/** The bystander's news item's title. */
export const BYSTANDER_NEWS = 'Bystander news'

/** Whether TEST_BYSTANDER leaves the bystander on (anything but `off`). */
export const bystanderOn = () => process.env.TEST_BYSTANDER !== 'off'

let template: Promise<string> | undefined

/**
 * Puts the bystander beside `default` on a built app that is not ready yet: its database (the
 * template's copy, migrated further when the app brings migrations of its own), its row and key.
 * An app over a database that has it already (a second instance) leaves it as it is. `fresh` makes
 * the throwaway app the template is filled through, over the given SQLite file.
 */
export async function addBystander(
  app: FastifyInstance,
  fresh: (dbPath: string) => Promise<FastifyInstance>,
  options: { extraMigrations: boolean },
): Promise<void> {
  const { config } = app
  if (config.DB_DRIVER !== 'sqlite' || config.DB_PATH === ':memory:' || !config.MIGRATE_ON_START) return
  const known = await app.db.selectFrom('games').select('id').where('id', '=', BYSTANDER).executeTakeFirst()
  if (known) return
  const file = gameFile(config.DB_PATH, BYSTANDER)
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true })
    copyFileSync(await (template ??= makeTemplate(fresh)), file)
  }
  if (options.extraMigrations) await createGameStore(app.db, config, BYSTANDER, app.games.migrations)
  await insertGame(app.db, BYSTANDER, 'Bystander', app.clock.now())
}

/** The bystander's database, made once per process: migrated, filled, one file (no WAL beside it). */
async function makeTemplate(fresh: (dbPath: string) => Promise<FastifyInstance>): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-bystander-'))
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
  const app = await fresh(join(dir, 'server.db'))
  try {
    const { key } = await insertGame(app.db, BYSTANDER, 'Bystander', app.clock.now())
    await createGameStore(app.db, app.config, BYSTANDER, app.games.migrations)
    await app.games.reload()
    await fill(app, key.key)
  } finally {
    await app.close()
  }
  const path = join(dir, 'template.db')
  const source = new SQLite(gameFile(join(dir, 'server.db'), BYSTANDER))
  try {
    source.prepare('vacuum into ?').run(path)
  } finally {
    source.close()
  }
  return path
}

/** The bystander's data, written through its app key and its admin path as its clients and operator would. */
async function fill(app: FastifyInstance, key: string): Promise<void> {
  const send = async (what: string, method: 'GET' | 'POST' | 'PUT', url: string, payload: object, token?: string) => {
    const admin = url.startsWith('admin:')
    const response = await app.inject({
      method,
      url: admin ? `/api/v1/admin/games/${BYSTANDER}${url.slice(6)}` : `/api/v1/app${url}`,
      headers: admin
        ? { 'x-admin-key': app.config.ADMIN_API_KEY! }
        : { 'x-api-key': key, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      payload,
    })
    if (response.statusCode >= 300) throw new Error(`the bystander's ${what}: ${response.statusCode} ${response.body}`)
    return response.json()
  }
  const player = await send('player', 'POST', '/user-management/signup', {
    type: 'ANONYMOUS',
    username: BYSTANDER_PLAYER,
  })
  const { userId, accessToken } = player as { userId: string; accessToken: string }
  await send('score', 'POST', '/leaderboards/default/submit', { userId, score: BYSTANDER_SCORE })
  await send('save', 'POST', '/cloud-save/save', { userId, saveData: '{"bystander":true}' }, accessToken)
  await send('feedback', 'POST', '/user-feedback/submit', {
    userId,
    title: 'Bystander feedback',
    message: 'Seen in another game, it leaked.',
    category: 'BUG',
  })
  await send('log', 'POST', '/user-logs/create', { userId, type: 'INFO', message: 'Bystander log line' })
  await send('config', 'PUT', 'admin:/remote-config/bystander.only', { value: 'bystander' })
  await send('translation', 'PUT', 'admin:/localization/en', { translations: { 'bystander.only': 'Bystander' } })
  await send('news', 'POST', 'admin:/news', {
    title: BYSTANDER_NEWS,
    message: 'Seen in another game, it leaked.',
    languageCode: 'en',
  })
  await send('gift code', 'POST', 'admin:/gift-codes', {
    code: 'BYSTANDER',
    giftData: '{"coins":1}',
    maxRedemptions: 5,
  })
}
