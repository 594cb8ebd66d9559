import { sql } from 'kysely'
import { whereSet, type Config } from '../config.js'
import { createDb } from './index.js'
import { POOL_WAIT_TIMEOUT, QUERY_TIMEOUT } from './mysql-driver.js'

type DbConfig = Parameters<typeof createDb>[0]
type MysqlTarget = Pick<Config, 'DB_HOST' | 'DB_PORT' | 'DB_NAME' | 'DB_USER' | 'DB_PASS' | 'DB_QUERY_TIMEOUT_MS'>

/** The first `code` along an error's chain of causes (Kysely and the migrator wrap the driver's error). */
function codeOf(error: unknown): { code?: string; message: string } {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const { code, cause, errors } = current as { code?: unknown; cause?: unknown; errors?: unknown[] }
    if (typeof code === 'string') return { code, message: String((current as Error).message) }
    // A host name with several addresses fails with one error per address tried.
    current = cause ?? errors?.[0]
  }
  return { message: String((error as Error | null)?.message ?? error) }
}

/** A name as MySQL takes it in a statement: bare when it is plain, quoted otherwise. */
function identifier(name: string): string {
  return /^[A-Za-z0-9_]+$/.test(name) ? name : `\`${name.replace(/`/g, '``')}\``
}

const CREATE_DATABASE = (name: string) =>
  `CREATE DATABASE ${identifier(name)} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`

/**
 * What a failed connection to MySQL means in the operator's terms, with what to do next; null for
 * an error that is not about reaching the server, the database or the account.
 */
export function explainMysqlError(error: unknown, config: MysqlTarget): string | null {
  const { code, message } = codeOf(error)
  const at = `MySQL at ${config.DB_HOST}:${config.DB_PORT}`
  const user = `"${config.DB_USER}"`
  switch (code) {
    case 'ECONNREFUSED':
      return (
        `cannot connect to ${at} (connection refused): start the MySQL server, ` +
        'or set DB_HOST and DB_PORT in .env to where it listens'
      )
    case 'ETIMEDOUT':
    case POOL_WAIT_TIMEOUT:
    case QUERY_TIMEOUT:
      return (
        `cannot connect to ${at} (no answer within ${config.DB_QUERY_TIMEOUT_MS} ms): check DB_HOST and DB_PORT, ` +
        'that the server is up and not overloaded, and that no firewall drops the connection'
      )
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot connect to ${at} (host not found): set DB_HOST in .env to a name or address this machine resolves`
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `cannot connect to ${at} (host unreachable): check DB_HOST and this machine's network route to it`
    case 'ECONNRESET':
    case 'PROTOCOL_CONNECTION_LOST':
      return (
        `cannot connect to ${at} (the connection was closed at once): check that DB_PORT is MySQL's port ` +
        'and that the server accepts connections from this host'
      )
    case 'ER_BAD_DB_ERROR':
      return (
        `database "${config.DB_NAME}" does not exist on ${at}: ${CREATE_DATABASE(config.DB_NAME)} ` +
        '(or set DB_NAME in .env to an existing database)'
      )
    case 'ER_ACCESS_DENIED_ERROR':
    case 'ER_ACCESS_DENIED_NO_PASSWORD_ERROR': {
      // MySQL answers a wrong password, a client host the account does not allow and an unknown
      // account alike (error 1045), so the message names no single cause and proposes no CREATE USER:
      // for the usual case, an account that exists, that would be the wrong fix.
      const seenAs = /'[^']*'@'([^']*)'/.exec(message)?.[1]
      const from = seenAs ? ` from '${seenAs}' (this machine, as the server sees it)` : ' from this machine'
      return config.DB_PASS
        ? `access denied for user ${user} on ${at} (with a password): the password is wrong, or the account ` +
            `may not connect${from}; check ${whereSet(config, 'DB_PASS')} and ${whereSet(config, 'DB_USER')}`
        : `access denied for user ${user} on ${at} (without a password): the account needs its password; ` +
            `set ${whereSet(config, 'DB_PASS')}`
    }
    case 'ER_DBACCESS_DENIED_ERROR':
      return (
        `access denied for user ${user} to database "${config.DB_NAME}" on ${at}: ` +
        `GRANT ALL PRIVILEGES ON ${identifier(config.DB_NAME)}.* TO '${config.DB_USER}'@'%' ` +
        `(or use an account that has them: ${whereSet(config, 'DB_USER')}, ${whereSet(config, 'DB_PASS')})`
      )
    default:
      return null
  }
}

/** What a SQLite file that cannot be opened means, with what to do next; null for any other error. */
export function explainSqliteError(error: unknown, path: string): string | null {
  const { code, message } = codeOf(error)
  switch (code) {
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
    case 'SQLITE_CANTOPEN':
    case 'SQLITE_READONLY':
    case 'SQLITE_PERM':
      return (
        `cannot open the SQLite database ${path} (${message}): make its folder writable by this user, ` +
        'or set DB_PATH in .env to a file in a folder it may write'
      )
    case 'ENOTDIR':
    case 'EEXIST':
      return `cannot create the folder of the SQLite database ${path} (${message}): set DB_PATH in .env to a file path`
    case 'SQLITE_NOTADB':
    case 'SQLITE_CORRUPT':
      return (
        `${path} is not a usable SQLite database (${message}): set DB_PATH in .env to Outpost's database file, ` +
        'or restore it from a backup'
      )
    default:
      return null
  }
}

/** The error to report for a database problem at start: explained when it can be, as it came otherwise. */
export function explainDbError(error: unknown, config: DbConfig): unknown {
  const explained =
    config.DB_DRIVER === 'mysql' ? explainMysqlError(error, config) : explainSqliteError(error, config.DB_PATH)
  return explained ? new Error(explained, { cause: error }) : error
}

/** The shortest wait of the start's connection check. */
export const START_CHECK_MIN_MS = 10_000

/**
 * Before the migrations: one connection to MySQL within DB_QUERY_TIMEOUT_MS (10 s at least), so that a wrong host,
 * port, account or database name is reported as such (the migrations' own connection waits much longer,
 * and their errors would read as a failed migration). SQLite needs no such check: opening the file is it.
 */
export async function checkDatabase(config: DbConfig): Promise<void> {
  if (config.DB_DRIVER !== 'mysql') return
  // At least 10 s: a server busy at the moment of the start is not a wrong address.
  const bounded = {
    ...config,
    DB_POOL_SIZE: 1,
    DB_QUERY_TIMEOUT_MS: Math.max(config.DB_QUERY_TIMEOUT_MS, START_CHECK_MIN_MS),
  }
  const db = createDb(bounded)
  try {
    await sql`select 1`.execute(db)
  } catch (error) {
    throw explainDbError(error, bounded)
  } finally {
    await db.destroy()
  }
}
