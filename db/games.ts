import { rmSync } from 'node:fs'
import { basename, dirname, extname, join } from 'node:path'
import { sql } from 'kysely'
import type { Db } from './types.js'
import type { DbConfig, DbObserver } from './config.js'
import { createDb, inheritHandle, MIGRATION_QUERY_TIMEOUT_MS } from './index.js'
import { migrateToLatest, type Migrations } from './migrate.js'
import { engineNamed } from './engines/index.js'
import { DEFAULT_GAME, GameMark, GameSchema } from './game-schema.js'
import { linkReader } from './read-hosts.js'

export { DEFAULT_GAME, GAME_ID_PATTERN, gameIdOf, routineName, schemaOf, table } from './game-schema.js'

/**
 * Where each game's data lives (docs/several-games.md, "How games are kept apart"). The game
 * `default` is the database the settings name, exactly as before games existed. Every other game has
 * a database of its own beside it: on MySQL a database (`<DB_NAME>__<id>`), on PostgreSQL a schema
 * of the same database (`game_<id>`), on SQLite a file in a folder beside `DB_PATH`. Each holds every
 * table, made by the same migrations, so the features' code runs unchanged against any game: a
 * request is handed its game's handle, and a handle cannot name another game's tables.
 *
 * On the database servers a game's handle shares the default's pool: Kysely's schema plugin writes
 * the game's database or schema before every table of a built query. SQL written by hand names its
 * tables through `table()` below, and a stored routine through `routineName()`.
 */

/** The database (MySQL) or schema (PostgreSQL) of a game other than `default`; null on SQLite. */
export function gameSchema(config: Pick<DbConfig, 'DB_DRIVER' | 'DB_NAME'>, gameId: string): string | null {
  if (gameId === DEFAULT_GAME) return null
  const id = gameId.replaceAll('-', '_')
  const engine = engineNamed(config.DB_DRIVER).name
  if (engine === 'sqlite') return null
  return engine === 'mysql' ? `${config.DB_NAME}__${id}` : `game_${id}`
}

/** The SQLite file of a game other than `default`: `data/outpost.db` keeps game `x` in `data/outpost.games/x.db`. */
export function gameFile(dbPath: string, gameId: string): string {
  if (dbPath === ':memory:') return dbPath
  return join(dirname(dbPath), `${basename(dbPath, extname(dbPath))}.games`, `${gameId}.db`)
}

/** Why a game id cannot have a database of its own on this server (a name too long), or null. */
export function gameStoreProblem(config: Pick<DbConfig, 'DB_DRIVER' | 'DB_NAME'>, gameId: string): string | null {
  const schema = gameSchema(config, gameId)
  if (schema && schema.length > 63) {
    return `the game's database name ${schema} is longer than the server allows (63): choose a shorter id`
  }
  return null
}

/**
 * The handle of a game's data. `base` is the default game's handle (`createDb`); on the servers the
 * game's handle shares its pool and is never destroyed on its own, on SQLite it is a database of
 * its own, which the caller destroys.
 */
export function openGameDb(base: Db, config: DbConfig, gameId: string, observer?: DbObserver): Db {
  if (gameId === DEFAULT_GAME) return base
  const schema = gameSchema(config, gameId)
  if (!schema) {
    const own = createDb({ ...config, DB_PATH: gameFile(config.DB_PATH, gameId) }, observer)
    const marked = own.withPlugin(new GameMark(gameId)) as Db
    inheritHandle(own, marked)
    ownHandles.set(marked, own)
    return marked
  }
  const db = base.withPlugin(new GameSchema(schema, gameId)) as Db
  inheritHandle(base, db)
  // Its reads that may be seconds old go to the read hosts, to the same game's database (read-hosts.ts).
  linkReader(base, db, (reader) => reader.withPlugin(new GameSchema(schema, gameId)) as Db)
  return db
}

/** The SQLite games' handles, marked, with the database each was made from. */
const ownHandles = new WeakMap<Db, Db>()

/** Closes a game's handle when it is a database of its own (a SQLite game's file); a no-op on the servers. */
export async function closeGameDb(db: Db): Promise<void> {
  await ownHandles.get(db)?.destroy()
}

/** The settings of a connection of its own to a game's database, for its migrations (one connection, no query bound). */
function migrationConfig(config: DbConfig, gameId: string): DbConfig {
  const schema = gameSchema(config, gameId)
  const migration = { ...config, DB_POOL_SIZE: 1, DB_QUERY_TIMEOUT_MS: MIGRATION_QUERY_TIMEOUT_MS }
  if (engineNamed(config.DB_DRIVER).name === 'mysql') return { ...migration, DB_NAME: schema! }
  return { ...migration, searchPath: schema! }
}

/**
 * Makes a game's database (MySQL: with the default database's character set), or finds it made,
 * and brings it to the latest migration: the tables every game holds. Run again, it only migrates.
 */
export async function createGameStore(base: Db, config: DbConfig, gameId: string, migrations: Migrations) {
  if (gameId === DEFAULT_GAME) return []
  const schema = gameSchema(config, gameId)
  if (!schema) {
    const db = createDb({ ...config, DB_PATH: gameFile(config.DB_PATH, gameId) })
    try {
      return await migrateToLatest(db, migrations)
    } finally {
      await db.destroy()
    }
  }
  if (engineNamed(config.DB_DRIVER).name === 'mysql') {
    const { rows } = await sql<{ charset: string; collation: string }>`
      select default_character_set_name as charset, default_collation_name as collation
      from information_schema.schemata where schema_name = database()`.execute(base)
    const { charset, collation } = rows[0] ?? {}
    if (!/^\w+$/.test(charset ?? '') || !/^\w+$/.test(collation ?? '')) {
      throw new Error(`the default database's character set could not be read (${charset}, ${collation})`)
    }
    await sql`create database if not exists ${sql.id(schema)} character set ${sql.raw(charset!)} collate ${sql.raw(collation!)}`.execute(
      base,
    )
  } else {
    await sql`create schema if not exists ${sql.id(schema)}`.execute(base)
  }
  const db = createDb(migrationConfig(config, gameId))
  try {
    return await migrateToLatest(
      db,
      migrations,
      engineNamed(config.DB_DRIVER).name === 'postgres' ? { tableSchema: schema } : {},
    )
  } finally {
    await db.destroy()
  }
}

/** Erases a game's database whole (its handle must be closed first on SQLite). */
export async function dropGameStore(base: Db, config: DbConfig, gameId: string): Promise<void> {
  if (gameId === DEFAULT_GAME) throw new Error('the default game is never dropped')
  const schema = gameSchema(config, gameId)
  if (!schema) {
    const file = gameFile(config.DB_PATH, gameId)
    if (file === ':memory:') return
    for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true })
    return
  }
  if (engineNamed(config.DB_DRIVER).name === 'mysql') await sql`drop database if exists ${sql.id(schema)}`.execute(base)
  else await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(base)
}
