import { MysqlAdapter, sql, type InsertQueryBuilder, type SelectQueryBuilder } from 'kysely'
import type { BackupTarget, Engine, StartProblem, StartTarget } from '../engine.js'
import { codeOf, networkProblem, noTls, serverAt, shellWord, tlsProblem, tlsRequired } from '../engine-advice.js'
import { POOL_WAIT_TIMEOUT, QUERY_TIMEOUT } from '../pool-bounds.js'
import { likePattern } from './sqlite.js'

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  QUERY_TIMEOUT,
  POOL_WAIT_TIMEOUT,
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  // Galera, errno 1047: "WSREP has not yet prepared node for application use" (a node outside the
  // cluster's primary component, or still joining): another node may answer (db/mysql-hosts.ts).
  'ER_UNKNOWN_COM_ERROR',
  'ER_ACCESS_DENIED_ERROR',
  'ER_BAD_DB_ERROR',
])

/** ER_LOCK_DEADLOCK and ER_LOCK_WAIT_TIMEOUT: InnoDB rolled the statement or transaction back. */
const DEADLOCK = 1213
const LOCK_WAIT_TIMEOUT = 1205

/**
 * MySQL 8 and MariaDB 10.11+, through mysql2 (db/open-mysql.ts). Tables are utf8mb4 with the
 * case-insensitive utf8mb4_unicode_ci by default: keys that must match exactly say utf8mb4_bin.
 */
export const mysqlEngine: Engine = {
  name: 'mysql',
  title: 'MySQL',
  defaultPort: 3306,
  adapter: MysqlAdapter,
  types: {
    key: (length) => sql.raw(`varchar(${length}) character set utf8mb4 collate utf8mb4_bin`),
    longText: sql`mediumtext`,
    blob: sql`mediumblob`,
  },
  autoId: (table, column) => table.addColumn(column, 'integer', (c) => c.primaryKey().autoIncrement()),
  // `values(col)`: MariaDB and MySQL 8 both still accept it (MySQL 8's row alias is not MariaDB's).
  newValue: (column) => sql`values(${sql.ref(column)})`,
  stored: (_table, column) => sql.ref(column),
  onConflictUpdate: (query, _key, set) =>
    (query as InsertQueryBuilder<any, any, any>).onDuplicateKeyUpdate(set) as never,
  insertOrIgnore: (query) => (query as InsertQueryBuilder<any, any, any>).orIgnore() as never,
  forUpdate: (query) => (query as SelectQueryBuilder<any, any, any>).forUpdate() as never,
  signed: (expression) => sql<number>`cast(${expression} as signed)`,
  bitAnd: (a, mask) => sql<number>`(${a} & ${sql.lit(mask)})`,
  countSlot: sql<number>`coalesce(@outpost_count_slot, 0)`,
  // utf8mb4_unicode_ci columns compare without case already.
  containsText: (column, text) => sql`${sql.ref(column)} like ${likePattern(text)} escape '!'`,
  containsExact: (column, text) => sql`instr(${sql.ref(column)}, ${text}) > 0`,
  returning: false,
  survivesFailedStatement: true,
  routines: true,
  callRoutine: (name, args, schema) => sql`call ${schema ? sql.id(schema, name) : sql.id(name)}(${sql.join(args)})`,
  dropIndex: (db, name, table) => db.schema.dropIndex(name).on(table),
  errors: {
    unique: (e) => e.errno === 1062,
    foreignKey: (e) => e.errno === 1452,
    conflict: (e) => e.errno === DEADLOCK || e.errno === LOCK_WAIT_TIMEOUT,
    lockTimeout: (e) => e.errno === LOCK_WAIT_TIMEOUT,
    timeout: (e) => e.code === QUERY_TIMEOUT || e.code === POOL_WAIT_TIMEOUT || e.errno === LOCK_WAIT_TIMEOUT,
    unavailable: (e) =>
      (e.code !== undefined && UNAVAILABLE_CODES.has(e.code)) || e.fatal === true || e.message === 'Pool is closed.',
    // A server error (ER_*, with its errno) on a connection that stays usable.
    refused: (e) =>
      e.code?.startsWith('ER_') === true &&
      e.fatal !== true &&
      !UNAVAILABLE_CODES.has(e.code) &&
      e.code !== 'ER_SP_DOES_NOT_EXIST',
    missingRoutine: (e) => e.code === 'ER_SP_DOES_NOT_EXIST',
  },
  explainStartError,
  backupAdvice,
}

/** A name as MySQL takes it in a statement: bare when it is plain, quoted otherwise. */
function identifier(name: string): string {
  return /^[A-Za-z0-9_]+$/.test(name) ? name : `\`${name.replace(/`/g, '``')}\``
}

function explainStartError(error: unknown, target: StartTarget): StartProblem | null {
  const { code, message } = codeOf(error)
  const at = serverAt('MySQL', target)
  const user = `"${target.DB_USER}"`
  switch (code) {
    case 'PROTOCOL_CONNECTION_LOST':
      return { message: networkProblem('ECONNRESET', 'MySQL', target)! }
    case 'HANDSHAKE_NO_SSL_SUPPORT':
      return { message: noTls('MySQL', target, 'ssl_cert and ssl_key in its configuration') }
    // MySQL 8 names the cause (require_secure_transport); MariaDB answers 1045 instead, below.
    case 'ER_SECURE_TRANSPORT_REQUIRED':
      return { message: tlsRequired('MySQL', target) }
    case 'ER_BAD_DB_ERROR':
      return {
        message:
          `database "${target.DB_NAME}" does not exist on ${at}: CREATE DATABASE ${identifier(target.DB_NAME)} ` +
          'CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci (or set DB_NAME in .env to an existing database)',
      }
    case 'ER_ACCESS_DENIED_ERROR':
    case 'ER_ACCESS_DENIED_NO_PASSWORD_ERROR': {
      // MySQL answers a wrong password, a client host the account does not allow and an unknown
      // account alike (error 1045), so the message names no single cause and proposes no CREATE USER:
      // for the usual case, an account that exists, that would be the wrong fix.
      const seenAs = /'[^']*'@'([^']*)'/.exec(message)?.[1]
      const from = seenAs ? ` from '${seenAs}' (this machine, as the server sees it)` : ' from this machine'
      return {
        refused: true,
        message: target.DB_PASS
          ? `access denied for user ${user} on ${at} (with a password): the password is wrong, or the account ` +
            `may not connect${from}; check ${target.where('DB_PASS')} and ${target.where('DB_USER')}`
          : `access denied for user ${user} on ${at} (without a password): the account needs its password; ` +
            `set ${target.where('DB_PASS')}`,
      }
    }
    case 'ER_DBACCESS_DENIED_ERROR':
      return {
        message:
          `access denied for user ${user} to database "${target.DB_NAME}" on ${at}: ` +
          `GRANT ALL PRIVILEGES ON ${identifier(target.DB_NAME)}.* TO '${target.DB_USER}'@'%' ` +
          `(or use an account that has them: ${target.where('DB_USER')}, ${target.where('DB_PASS')})`,
      }
  }
  const explained =
    networkProblem(code, 'MySQL', target) ?? tlsProblem(code, message, 'MySQL', target, 'HANDSHAKE_SSL_ERROR')
  return explained ? { message: explained } : null
}

/** mysqldump with the configured server, user and database; `-p` makes it ask for the password. */
function backupAdvice(target: BackupTarget, file: string): string {
  const command = [
    'mysqldump --single-transaction --routines --triggers',
    `-h ${shellWord(target.DB_HOST)} -P ${target.DB_PORT} -u ${shellWord(target.DB_USER)} -p`,
    `${shellWord(target.DB_NAME)} > ${shellWord(file)}`,
  ].join(' ')
  return (
    'npm run backup copies a SQLite database; this configuration uses MySQL (DB_DRIVER=mysql). Back it up with\n' +
    `  ${command}\n` +
    '(it asks for the password of DB_PASS; --single-transaction takes a consistent snapshot without locking the running server).\n' +
    `Each game other than default has a database of its own, ${target.DB_NAME}__<id> (dashes as _): dump each the ` +
    'same way, naming its database in place of the first (SHOW DATABASES lists them).'
  )
}
