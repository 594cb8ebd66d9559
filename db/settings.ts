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
  DB_READ_HOST: Type.String({
    default: '',
    description:
      'mysql: replicas or other nodes (host[:port],…) for the reads that may be seconds old (analytics, admin lists ' +
      'and searches, exports, the board lists); empty: every read on DB_HOST',
  }),
  DB_READ_MAX_LAG_MS: Type.Integer({
    // The lag is measured in steps of the heartbeat (db/read-hosts.ts, about half a second): a bound
    // under two steps would send a replica in step with the writer away now and then.
    minimum: 1000,
    maximum: 3_600_000,
    default: 2000,
    description:
      'How far behind the writer a host of DB_READ_HOST may be and still be read from; past it, reads go to DB_HOST',
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

/**
 * What is wrong with DB_READ_HOST (the read hosts of db/read-hosts.ts) for the configured engine, with
 * the fix; null when nothing is (it is empty, or a good list on MySQL/MariaDB). Called by loadConfig.
 */
export function dbReadHostProblem(
  config: { DB_DRIVER: string; DB_READ_HOST: string; DB_PORT: number },
  where: (name: string) => string,
): string | null {
  if (config.DB_READ_HOST.trim() === '') return null
  const engine = engineNamed(config.DB_DRIVER)
  const setting = where('DB_READ_HOST')
  if (engine.name !== 'mysql') {
    const keeps =
      engine.defaultPort === null
        ? `DB_DRIVER=${engine.name} keeps its data in the file of DB_PATH and connects to no server`
        : `on ${engine.title} Outpost reads and writes through DB_HOST alone (a standby's lag is the replication's to bound)`
    return (
      `${setting} names read hosts (${config.DB_READ_HOST}), but ${keeps}: remove DB_READ_HOST, or set DB_DRIVER=mysql ` +
      'with DB_HOST naming the writer and DB_READ_HOST its replicas'
    )
  }
  const parsed = readDbHosts(config.DB_READ_HOST, config.DB_PORT)
  return typeof parsed === 'string' ? `${setting} ${parsed.replace('DB_HOST takes', 'DB_READ_HOST takes')}` : null
}
