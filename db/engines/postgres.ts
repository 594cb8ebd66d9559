import { PostgresAdapter, sql, type InsertQueryBuilder, type SelectQueryBuilder } from 'kysely'
import type { BackupTarget, Engine, StartProblem, StartTarget } from '../engine.js'
import { codeOf, networkProblem, noTls, serverAt, shellWord, tlsProblem } from '../engine-advice.js'
import { POOL_WAIT_TIMEOUT, QUERY_TIMEOUT } from '../pool-bounds.js'
import { likePattern, ON_CONFLICT_UPSERT } from './sqlite.js'

/**
 * SQLSTATE classes and codes (PostgreSQL's "Appendix A. Error Codes"): 08 connection exception,
 * 53 insufficient resources, 57P01–57P03 the server shutting down or starting, 28 invalid
 * authorization, 3D000 no such database.
 */
const UNAVAILABLE_STATES = new Set(['53300', '57P01', '57P02', '57P03', '28000', '28P01', '3D000'])
const NODE_UNAVAILABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE'])
/** What node-postgres throws (as messages, without a code) when a connection ends or never comes. */
const LOST_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client was closed and is not queryable',
  'Cannot use a pool after calling end on the pool',
  'driver has already been destroyed',
]

/**
 * PostgreSQL 14–17, through node-postgres (db/open-postgres.ts). Transactions run at READ COMMITTED
 * (the server's default): every row the code decides on is read with FOR UPDATE or changed by a
 * conditional UPDATE, which see the latest committed row whatever the level.
 */
export const postgresEngine: Engine = {
  name: 'postgres',
  title: 'PostgreSQL',
  defaultPort: 5432,
  // Only the primary takes writes, and which standby becomes the primary when it fails is decided by
  // the replication's failover manager: moving down a list by itself, Outpost could write to a standby
  // not yet promoted (refused: read-only) or to an old primary that came back beside the new one.
  oneHost:
    'only its primary takes writes, and which standby is promoted when it fails is decided by the ' +
    'replication, not by Outpost: set DB_HOST to the one address that always leads to the primary ' +
    '(a virtual IP, or a proxy that follows it); a list of hosts is for MySQL and MariaDB (a Galera cluster)',
  adapter: PostgresAdapter,
  // PostgreSQL compares text byte for byte unless told otherwise (its collations are deterministic).
  types: { key: (length) => sql.raw(`varchar(${length})`), longText: 'text', blob: sql`bytea` },
  autoId: (table, column) => table.addColumn(column, 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity()),
  ...ON_CONFLICT_UPSERT,
  insertOrIgnore: (query) => (query as InsertQueryBuilder<any, any, any>).onConflict((oc) => oc.doNothing()) as never,
  forUpdate: (query) => (query as SelectQueryBuilder<any, any, any>).forUpdate() as never,
  signed: (expression) => sql<number>`${expression}`,
  // A bound parameter has no type of its own: `$1 & 255` would be ambiguous.
  bitAnd: (a, mask) => sql<number>`(cast(${a} as bigint) & ${sql.lit(mask)})`,
  countSlot: sql<number>`0`,
  containsText: (column, text) => sql`${sql.ref(column)} ilike ${likePattern(text)} escape '!'`,
  containsExact: (column, text) => sql`strpos(${sql.ref(column)}, ${text}) > 0`,
  returning: true,
  survivesFailedStatement: false,
  routines: true,
  callRoutine: (name, args, schema) =>
    sql`select * from ${schema ? sql.id(schema, name) : sql.id(name)}(${sql.join(args)})`,
  dropIndex: (db, name) => db.schema.dropIndex(name),
  errors: {
    unique: (e) => e.code === '23505',
    foreignKey: (e) => e.code === '23503',
    // deadlock_detected, serialization_failure, lock_not_available (lock_timeout)
    conflict: (e) => e.code === '40P01' || e.code === '40001' || e.code === '55P03',
    lockTimeout: (e) => e.code === '55P03',
    // query_canceled: statement_timeout (or a cancel); the driver's own bounds
    timeout: (e) => e.code === '57014' || e.code === QUERY_TIMEOUT || e.code === POOL_WAIT_TIMEOUT,
    unavailable: (e) =>
      (e.code !== undefined &&
        (UNAVAILABLE_STATES.has(e.code) ||
          e.code.startsWith('08') ||
          NODE_UNAVAILABLE.has(e.code) ||
          e.code === '57014' ||
          e.code === QUERY_TIMEOUT ||
          e.code === POOL_WAIT_TIMEOUT)) ||
      LOST_MESSAGES.some((m) => e.message?.startsWith(m) === true),
    // SQLSTATE classes 22 (data exception: too long, out of range, bad text) and 23 (integrity constraint).
    refused: (e) => e.code !== undefined && /^2[23][0-9A-Z]{3}$/.test(e.code),
    // undefined_function
    missingRoutine: (e) => e.code === '42883',
  },
  explainStartError,
  backupAdvice,
}

/** A name as PostgreSQL takes it in a statement: bare when it is plain lower case, quoted otherwise. */
function identifier(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`
}

/**
 * node-postgres reports a connection that ends before it is made with messages, not codes: the
 * connect bound (connectionTimeoutMillis), the server closing the socket, a server without TLS, and a
 * server that asks for a password when DB_PASS is empty.
 */
const CONNECT_TIMEOUT = /^Connection terminated due to connection timeout/
const CLOSED = /^Connection terminated unexpectedly/
const NO_TLS = /^The server does not support SSL connections/
const NO_PASSWORD = /password must be a (non-empty )?string/i
/** 28000 for a client that no pg_hba.conf line lets in: `… user "u", database "d", no encryption`. */
const NO_HBA_LINE = /^no pg_hba\.conf entry for host "([^"]*)"/

function explainStartError(error: unknown, target: StartTarget): StartProblem | null {
  const { code, message } = codeOf(error)
  const at = serverAt('PostgreSQL', target)
  const user = identifier(target.DB_USER)
  const database = identifier(target.DB_NAME)
  if (code === undefined) {
    if (CONNECT_TIMEOUT.test(message)) return { message: networkProblem('ETIMEDOUT', 'PostgreSQL', target)! }
    if (CLOSED.test(message)) return { message: networkProblem('ECONNRESET', 'PostgreSQL', target)! }
    if (NO_TLS.test(message)) return { message: noTls('PostgreSQL', target, 'ssl = on in postgresql.conf') }
    if (NO_PASSWORD.test(message) && !target.DB_PASS) {
      return {
        message: `${at} asks for the password of user "${target.DB_USER}", and DB_PASS is empty: set ${target.where('DB_PASS')}`,
      }
    }
    return null
  }
  switch (code) {
    case '3D000':
      // Since PostgreSQL 15 only a database's owner may create tables in its public schema: the
      // database is made DB_USER's, so that the migrations may.
      return {
        message:
          `database "${target.DB_NAME}" does not exist on ${at}: as a superuser, CREATE DATABASE ${database} ` +
          `ENCODING 'UTF8' TEMPLATE template0 OWNER ${user}; (its owner may create Outpost's tables in its public ` +
          `schema, which PostgreSQL 15+ opens to no one else), or set DB_NAME in .env to an existing database`,
      }
    case '28P01':
      return {
        refused: true,
        message:
          `access denied for user "${target.DB_USER}" on ${at} (password authentication failed): check ` +
          `${target.where('DB_PASS')} and ${target.where('DB_USER')}; how each user signs in is set in the server's pg_hba.conf`,
      }
    case '28000': {
      const seenAs = NO_HBA_LINE.exec(message)?.[1]
      if (seenAs !== undefined) {
        const line = `${target.DB_SSL === 'off' ? 'host' : 'hostssl'} ${database} ${user} ${seenAs}/${seenAs.includes(':') ? 128 : 32} scram-sha-256`
        return {
          refused: true,
          message:
            `${at} has no pg_hba.conf line that lets user "${target.DB_USER}" reach database "${target.DB_NAME}" ` +
            `from ${seenAs} (this machine, as the server sees it) ${target.DB_SSL === 'off' ? 'without' : 'over'} TLS: ` +
            `add one to the server's pg_hba.conf (${line}) and reload it (SELECT pg_reload_conf();), ` +
            `or check ${target.where('DB_USER')} and ${target.where('DB_NAME')}`,
        }
      }
      if (/^role ".*" does not exist/.test(message)) {
        return {
          message:
            `user "${target.DB_USER}" does not exist on ${at}: check ${target.where('DB_USER')}, or create it ` +
            `as a superuser: CREATE ROLE ${user} LOGIN PASSWORD '…'; (the password of DB_PASS)`,
        }
      }
      return {
        refused: true,
        message:
          `access denied for user "${target.DB_USER}" on ${at} (${message}): check ${target.where('DB_USER')} and ` +
          `${target.where('DB_PASS')}, and the line of the server's pg_hba.conf that matches this connection`,
      }
    }
    case '42501': {
      const schema = /^permission denied for schema (\S+)/.exec(message)?.[1]
      if (schema === undefined) return null
      return {
        message:
          `user "${target.DB_USER}" may not create tables in schema ${schema} of database "${target.DB_NAME}" on ${at} ` +
          `(PostgreSQL 15+ lets only the database's owner create there): as a superuser, connected to ` +
          `${database}, GRANT ALL ON SCHEMA ${schema} TO ${user}; (or ALTER DATABASE ${database} OWNER TO ${user};)`,
      }
    }
  }
  const explained = networkProblem(code, 'PostgreSQL', target) ?? tlsProblem(code, message, 'PostgreSQL', target)
  return explained ? { message: explained } : null
}

/**
 * pg_dump's custom format (-Fc): compressed, one consistent snapshot of a running server, restored
 * by pg_restore into an empty database. libpq asks for the password itself (or reads PGPASSWORD or
 * ~/.pgpass); DB_SSL becomes its PGSSLMODE (`sslrootcert=system` needs libpq 16).
 */
function backupAdvice(target: BackupTarget, file: string): string {
  const tls =
    target.DB_SSL === 'off'
      ? ''
      : target.DB_SSL === 'require'
        ? 'PGSSLMODE=require '
        : `PGSSLMODE=verify-full PGSSLROOTCERT=${shellWord(target.DB_SSL_CA || 'system')} `
  const server = `-h ${shellWord(target.DB_HOST)} -p ${target.DB_PORT} -U ${shellWord(target.DB_USER)}`
  const dump = `${tls}pg_dump -Fc ${server} -d ${shellWord(target.DB_NAME)} -f ${shellWord(file)}`
  const restore = `${tls}pg_restore --no-owner --exit-on-error ${server} -d ${shellWord(target.DB_NAME)} ${shellWord(file)}`
  return (
    'npm run backup copies a SQLite database; this configuration uses PostgreSQL (DB_DRIVER=postgres). Back it up with\n' +
    `  ${dump}\n` +
    '(it asks for the password of DB_PASS, or reads PGPASSWORD or ~/.pgpass; it dumps one consistent snapshot while ' +
    'the server runs; every game is in it, each game other than default in its schema game_<id>). Restore it, Outpost stopped, into an empty database (CREATE DATABASE … ENCODING ' +
    "'UTF8' TEMPLATE template0 OWNER … as for a new one) with\n" +
    `  ${restore}`
  )
}
