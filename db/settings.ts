import { Type } from '@sinclair/typebox'
import { ENGINE_NAMES } from './engine.js'
import { engineNamed } from './engines/index.js'
import { hostLabel, readDbHosts } from './hosts.js'

/**
 * The database settings of config.ts. DB_PORT has no fixed default: it is the engine's own port
 * (db/engines/) when not set (`loadConfig` fills it in).
 */
export const DB_SETTINGS = {
  DB_DRIVER: Type.Union(
    ENGINE_NAMES.map((name) => Type.Literal(name)),
    {
      default: 'sqlite',
      description:
        'Database: sqlite (an embedded file), mysql (MySQL 8 / MariaDB 10.11+) or postgres (PostgreSQL 14–17)',
    },
  ),
  DB_PATH: Type.String({ default: './data/outpost.db', description: 'SQLite database file' }),
  DB_HOST: Type.String({
    default: '127.0.0.1',
    description:
      'Database server (mysql, postgres): a host name or address, with :port or on DB_PORT. mysql also takes a ' +
      'comma list, host[:port],…: written to one host at a time, the next that answers taken when it stops answering',
  }),
  DB_PORT: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 65535,
      description:
        "Database server port, for each host of DB_HOST without its own; unset: the engine's own (3306 for mysql, 5432 for postgres)",
    }),
  ),
  DB_NAME: Type.String({
    default: 'outpost',
    description:
      "Database on the server, created beforehand (MySQL: CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci; PostgreSQL: ENCODING 'UTF8')",
  }),
  DB_USER: Type.String({ default: 'outpost', description: 'Database server user' }),
  DB_PASS: Type.String({ default: '', description: 'Database server password' }),
  DB_POOL_SIZE: Type.Integer({
    minimum: 1,
    maximum: 500,
    default: 10,
    description: 'Connections to the database server per instance',
  }),
  DB_SSL: Type.Union([Type.Literal('off'), Type.Literal('require'), Type.Literal('verify')], {
    default: 'off',
    description:
      "TLS to the database server: off, require (encrypted, certificate not checked) or verify (encrypted, certificate signed by DB_SSL_CA or the system's authorities, and naming DB_HOST)",
  }),
  DB_SSL_CA: Type.String({
    default: '',
    description:
      "PEM file of the authority that signed the server's certificate (DB_SSL=verify); empty: the system's store",
  }),
  DB_QUERY_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 600_000,
    default: 5000,
    description:
      'Longest wait for a database answer (a pool connection, a query, a lock); past it: 503 with Retry-After',
  }),
}

/**
 * What is wrong with DB_HOST for the configured engine, as the start-up says it (`where` names the
 * setting and where it was set), with the fix; null when nothing is. Called by loadConfig.
 */
export function dbHostProblem(
  config: { DB_DRIVER: string; DB_HOST: string; DB_PORT: number },
  where: (name: string) => string,
): string | null {
  const engine = engineNamed(config.DB_DRIVER)
  const setting = where('DB_HOST')
  if (engine.defaultPort === null) {
    // The embedded engine never reads DB_HOST: only a list, which asks for something it cannot do, is refused.
    const entries = config.DB_HOST.split(',').map((entry) => entry.trim())
    if (entries.length < 2) return null
    return (
      `${setting} lists ${entries.length} hosts (${entries.join(', ')}), but DB_DRIVER=${engine.name} keeps its data ` +
      `in the file of DB_PATH and connects to no server: remove DB_HOST, or set DB_DRIVER=mysql for a ` +
      'MySQL or MariaDB cluster whose servers it lists'
    )
  }
  const parsed = readDbHosts(config.DB_HOST, config.DB_PORT)
  if (typeof parsed === 'string') return `${setting} ${parsed}`
  if (parsed.length > 1 && engine.oneHost) {
    return `${setting} lists ${parsed.length} hosts (${parsed.map(hostLabel).join(', ')}), but ${engine.title} takes one: ${engine.oneHost}`
  }
  return null
}
