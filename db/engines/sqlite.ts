import { SqliteAdapter, sql, type InsertQueryBuilder } from 'kysely'
import type { Engine, StartProblem, StartTarget } from '../engine.js'
import { codeOf } from '../engine-advice.js'

const UNAVAILABLE = new Set(['SQLITE_BUSY', 'SQLITE_CANTOPEN', 'SQLITE_IOERR', 'SQLITE_FULL', 'SQLITE_READONLY'])
const CLOSED = new Set(['The database connection is not open', 'driver has already been destroyed'])

/**
 * The upsert of SQLite and PostgreSQL: INSERT … ON CONFLICT (key) DO UPDATE, the new row as
 * `excluded`, and the stored column qualified by its table (PostgreSQL finds a bare name ambiguous
 * there, 42702, as both the table and `excluded` are in scope).
 */
export const ON_CONFLICT_UPSERT: Pick<Engine, 'newValue' | 'stored' | 'onConflictUpdate'> = {
  newValue: (column) => sql.ref(`excluded.${column}`),
  stored: (table, column) => sql.ref(`${table}.${column}`),
  onConflictUpdate: (query, key, set) =>
    (query as InsertQueryBuilder<any, any, any>).onConflict((oc) =>
      oc.columns(key as string[]).doUpdateSet(set),
    ) as never,
}

/**
 * SQLite, through better-sqlite3 (db/open-sqlite.ts). One writer at a time per file: no row locks,
 * and a conflict is a busy wait the driver sits out (db/sqlite-driver.ts), never a deadlock.
 */
export const sqliteEngine: Engine = {
  name: 'sqlite',
  title: 'SQLite',
  defaultPort: null,
  adapter: SqliteAdapter,
  types: { key: (length) => sql.raw(`varchar(${length})`), longText: 'text', blob: sql`blob` },
  autoId: (table, column) => table.addColumn(column, 'integer', (c) => c.primaryKey().autoIncrement()),
  ...ON_CONFLICT_UPSERT,
  insertOrIgnore: (query) => (query as InsertQueryBuilder<any, any, any>).orIgnore() as never,
  forUpdate: (query) => query,
  signed: (expression) => sql<number>`${expression}`,
  bitAnd: (a, mask) => sql<number>`(${a} & ${sql.lit(mask)})`,
  countSlot: sql<number>`0`,
  // LIKE is case-insensitive for ASCII letters in SQLite; instr() finds the exact substring.
  containsText: (column, text) => sql`${sql.ref(column)} like ${likePattern(text)} escape '!'`,
  containsExact: (column, text) => sql`instr(${sql.ref(column)}, ${text}) > 0`,
  returning: true,
  survivesFailedStatement: true,
  routines: false,
  callRoutine: () => {
    throw new Error('SQLite keeps no stored routines')
  },
  dropIndex: (db, name) => db.schema.dropIndex(name),
  errors: {
    unique: (e) => e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY',
    foreignKey: (e) => e.code === 'SQLITE_CONSTRAINT_FOREIGNKEY',
    // Not retried: the driver has already waited for the lock up to the query bound.
    conflict: () => false,
    lockTimeout: (e) => e.code === 'SQLITE_BUSY',
    timeout: (e) => e.code === 'SQLITE_BUSY',
    unavailable: (e) => (e.code !== undefined && UNAVAILABLE.has(e.code)) || CLOSED.has(e.message ?? ''),
    refused: (e) => e.code?.startsWith('SQLITE_') === true && !UNAVAILABLE.has(e.code),
    missingRoutine: () => false,
  },
  explainStartError,
  // npm run backup copies the file itself (scripts/backup/).
  backupAdvice: () => null,
}

/** What a SQLite file that cannot be opened means, with what to do next; null for any other error. */
function explainStartError(error: unknown, target: StartTarget): StartProblem | null {
  const { code, message } = codeOf(error)
  const path = target.DB_PATH
  switch (code) {
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
    case 'SQLITE_CANTOPEN':
    case 'SQLITE_READONLY':
    case 'SQLITE_PERM':
      return {
        message:
          `cannot open the SQLite database ${path} (${message}): make its folder writable by this user, ` +
          'or set DB_PATH in .env to a file in a folder it may write',
      }
    case 'ENOTDIR':
    case 'EEXIST':
      return {
        message: `cannot create the folder of the SQLite database ${path} (${message}): set DB_PATH in .env to a file path`,
      }
    case 'SQLITE_NOTADB':
    case 'SQLITE_CORRUPT':
      return {
        message:
          `${path} is not a usable SQLite database (${message}): set DB_PATH in .env to Outpost's database file, ` +
          'or restore it from a backup',
      }
    default:
      return null
  }
}

/** `%text%` for LIKE … ESCAPE '!', the wildcards in `text` taken literally. */
export function likePattern(text: string): string {
  return `%${text.replace(/[!%_]/g, (c) => `!${c}`)}%`
}
