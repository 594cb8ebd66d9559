import pg from 'pg'

/**
 * Databases of their own on a PostgreSQL server, for the bench and the tests alike (as bench/mysql.ts
 * does for MySQL): each run or test file creates one (UTF8, as the README asks of a production
 * database) and drops it after.
 */

/** node-postgres's connection options from a `postgres://user:pass@host:port/db` URL. */
export function postgresConnection(url: string) {
  const parsed = new URL(url)
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 5432),
    user: decodeURIComponent(parsed.username) || 'postgres',
    password: decodeURIComponent(parsed.password),
    // The maintenance database to connect to when creating and dropping others.
    database: decodeURIComponent(parsed.pathname.slice(1)) || 'postgres',
  }
}

/** Runs `statement` on a connection of its own to the URL's database. */
export async function onPostgresServer(url: string, statement: string): Promise<unknown[]> {
  const client = new pg.Client({ ...postgresConnection(url), connectionTimeoutMillis: 10_000 })
  await client.connect()
  try {
    return (await client.query(statement)).rows
  } finally {
    await client.end()
  }
}

export const createPostgresDatabase = (url: string, name: string) =>
  onPostgresServer(url, `CREATE DATABASE "${name}" ENCODING 'UTF8' TEMPLATE template0`)

/** WITH (FORCE): a test that failed may have left a connection open, which would block a plain DROP. */
export const dropPostgresDatabase = (url: string, name: string) =>
  onPostgresServer(url, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)

/** The settings that point Outpost at the database `name` on the server of `url`. */
export function postgresSettings(url: string, name: string, poolSize: number): Record<string, string> {
  const conn = postgresConnection(url)
  return {
    DB_DRIVER: 'postgres',
    DB_HOST: conn.host,
    DB_PORT: String(conn.port),
    DB_USER: conn.user,
    DB_PASS: conn.password,
    DB_NAME: name,
    DB_POOL_SIZE: String(poolSize),
  }
}
