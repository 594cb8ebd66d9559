import { createConnection } from 'mysql2/promise'

/**
 * Databases of their own on a MySQL/MariaDB server, for the bench and the tests alike: each run or
 * test file creates one (utf8mb4, as the README asks of a production database) and drops it after,
 * so runs sharing one server never touch each other's tables.
 */

/** mysql2's connection options from a `mysql://user:pass@host:port` URL. */
export function mysqlConnection(url: string) {
  const parsed = new URL(url)
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 3306),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
  }
}

/** Runs `statement` on a connection of its own (no database selected). */
export async function onMysqlServer(url: string, statement: string): Promise<unknown> {
  const admin = await createConnection(mysqlConnection(url))
  try {
    const [rows] = await admin.query(statement)
    return rows
  } finally {
    await admin.end()
  }
}

export const createMysqlDatabase = (url: string, name: string) =>
  onMysqlServer(url, `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`)

/** Drops the database `name` and the databases of its other games (`name__<id>`, db/games.ts). */
export async function dropMysqlDatabase(url: string, name: string): Promise<void> {
  const games = (await onMysqlServer(
    url,
    `SELECT schema_name AS name FROM information_schema.schemata WHERE schema_name LIKE '${name.replaceAll('_', '\\_')}\\_\\_%'`,
  )) as Array<{ name: string }>
  for (const game of games) await onMysqlServer(url, `DROP DATABASE IF EXISTS \`${game.name}\``)
  await onMysqlServer(url, `DROP DATABASE IF EXISTS \`${name}\``)
}

/** The settings that point Outpost at the database `name` on the server of `url`. */
export function mysqlSettings(url: string, name: string, poolSize: number): Record<string, string> {
  const conn = mysqlConnection(url)
  return {
    DB_DRIVER: 'mysql',
    DB_HOST: conn.host,
    DB_PORT: String(conn.port),
    DB_USER: conn.user,
    DB_PASS: conn.password,
    DB_NAME: name,
    DB_POOL_SIZE: String(poolSize),
  }
}
