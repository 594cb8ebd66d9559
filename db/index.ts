import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import SQLite from 'better-sqlite3'
import { createPool } from 'mysql2'
import { Kysely, MysqlDialect, SqliteDialect } from 'kysely'
import type { Config } from '../plugins/core/config.js'
import type { Database } from './types.js'

export type Db = Kysely<Database>

type DbConfig = Pick<
  Config,
  'DB_DRIVER' | 'DB_PATH' | 'DB_HOST' | 'DB_PORT' | 'DB_NAME' | 'DB_USER' | 'DB_PASS' | 'DB_POOL_SIZE'
>

/** Kysely over the driver DB_DRIVER names. Both dialects run the same migrations and queries. */
export function createDb(config: DbConfig): Db {
  if (config.DB_DRIVER === 'mysql') {
    const pool = createPool({
      host: config.DB_HOST,
      port: config.DB_PORT,
      user: config.DB_USER,
      password: config.DB_PASS,
      database: config.DB_NAME,
      connectionLimit: config.DB_POOL_SIZE,
      charset: 'UTF8MB4_UNICODE_CI',
      timezone: 'Z',
      // Scores and balances go up to 2^53-1: numbers while exact, never silently rounded.
      supportBigNumbers: true,
      bigNumberStrings: false,
      decimalNumbers: true,
      connectTimeout: 5000,
      enableKeepAlive: true,
    })
    return new Kysely<Database>({ dialect: new MysqlDialect({ pool }) })
  }
  if (config.DB_PATH !== ':memory:') mkdirSync(dirname(config.DB_PATH), { recursive: true })
  const sqlite = new SQLite(config.DB_PATH)
  sqlite.pragma('journal_mode = WAL')
  sqlite.pragma('synchronous = NORMAL')
  sqlite.pragma('busy_timeout = 5000')
  sqlite.pragma('foreign_keys = ON')
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) })
}
