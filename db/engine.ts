import type {
  ColumnDataType,
  CreateTableBuilder,
  DialectAdapter,
  Expression,
  Kysely,
  RawBuilder,
  SqlBool,
} from 'kysely'

/** A column type as Kysely's schema builder takes it. */
export type DataTypeExpression = ColumnDataType | Expression<any>

/** The engines `DB_DRIVER` names. */
export const ENGINE_NAMES = ['sqlite', 'mysql', 'postgres'] as const
/** An engine's name, typed so a switch over engines is checked to be complete. */
export type EngineName = (typeof ENGINE_NAMES)[number]

/**
 * How an engine's errors are told apart. Each engine has its own codes (SQLite's `SQLITE_*` strings,
 * MySQL's numeric errno, PostgreSQL's five-character SQLSTATE), so an error is classed by asking
 * every engine in turn (db/errors.ts) without knowing which database threw it.
 */
export interface ErrorClasses {
  /** A unique or primary key was violated. */
  unique(error: ErrorLike): boolean
  /** A row referenced a parent that does not exist. */
  foreignKey(error: ErrorLike): boolean
  /** The database aborted the transaction to break a deadlock or a serialization conflict: safe to run again. */
  conflict(error: ErrorLike): boolean
  /** A lock wait ran out. */
  lockTimeout(error: ErrorLike): boolean
  /** A statement (or the wait for a connection) outlasted its bound. */
  timeout(error: ErrorLike): boolean
  /** The database did not answer, or refused the connection: a retry later can succeed. */
  unavailable(error: ErrorLike): boolean
  /**
   * The database refused the statement for the values it carried (a value too long or out of range
   * for its column, a key or a check): the same statement would be refused again, the next one need not.
   */
  refused(error: ErrorLike): boolean
  /** A stored routine the statement calls does not exist (a database restored without its routines). */
  missingRoutine(error: ErrorLike): boolean
}

/** The parts of a driver's error the engines classify by, whatever driver threw it. */
export interface ErrorLike {
  code?: string
  errno?: number
  fatal?: boolean
  message?: string
}

/** The column types that differ between engines, for migrations. */
export interface ColumnTypes {
  /** A short key compared byte for byte (case-sensitive, accents apart), `length` characters at most. */
  key(length: number): DataTypeExpression
  /** Text of up to 16 MB (MySQL's TEXT stops at 64 KB). */
  longText: DataTypeExpression
  /** Bytes of up to 16 MB. */
  blob: DataTypeExpression
}

/**
 * What the start-up messages need of the configuration (db/startup-check.ts): where the database is,
 * who connects and how, and where each setting came from.
 */
export interface StartTarget {
  DB_PATH: string
  DB_HOST: string
  DB_PORT: number
  DB_NAME: string
  DB_USER: string
  DB_PASS: string
  DB_SSL: 'off' | 'require' | 'verify'
  DB_SSL_CA: string
  DB_QUERY_TIMEOUT_MS: number
  /** A setting's name and where its value came from: `DB_PASS (set in .env)` (config.ts `whereSet`). */
  where(name: string): string
}

/** A failed start in the operator's terms (db/startup-check.ts). */
export interface StartProblem {
  /** What failed and what to do next, with the configured values filled in. */
  message: string
  /**
   * The server answered and refused this account, or this client's host. A server that accepts an
   * account only over TLS gives the same answer to a plain connection (MariaDB's
   * require_secure_transport, PostgreSQL's hostssl lines), so the start-up check then tries TLS to tell.
   */
  refused?: boolean
}

/** The database settings `npm run backup` fills into the command it proposes (scripts/backup/). */
export interface BackupTarget {
  DB_HOST: string
  DB_PORT: number
  DB_NAME: string
  DB_USER: string
  DB_SSL: 'off' | 'require' | 'verify'
  DB_SSL_CA: string
}

/**
 * One database engine: everything the rest of the code needs to know of it, behind one type. The
 * code asks `engineOf(db)` for the engine of a database; nothing outside `db/` names one.
 */
export interface Engine {
  readonly name: EngineName
  /** The engine's name for people: "SQLite", "MySQL", "PostgreSQL". */
  readonly title: string
  /** The TCP port a server of this engine listens on by default; null for an embedded one. */
  readonly defaultPort: number | null
  /**
   * A server engine that takes one DB_HOST, never a list (db/hosts.ts): why, and what to set instead,
   * as the start-up says it. Absent: a list is written to one host at a time (db/mysql-hosts.ts).
   */
  readonly oneHost?: string
  readonly types: ColumnTypes
  /** Adds an integer primary key `column` the database numbers itself (1, 2, …). */
  autoId<TB extends string>(table: CreateTableBuilder<TB, any>, column: string): CreateTableBuilder<TB, any>
  /** In an upsert's update part, the value the conflicting new row carried for `column`. */
  newValue(column: string): RawBuilder<unknown>
  /** In an upsert's update part, the stored row's `column` of `table`. */
  stored(table: string, column: string): RawBuilder<unknown>
  /**
   * INSERT … that, where a row's `key` exists, updates it with `set` instead. `key` is the unique key
   * the conflict is on (MySQL finds it itself).
   */
  onConflictUpdate<QB>(query: QB, key: readonly string[], set: Record<string, unknown>): QB
  /** INSERT … that skips a row whose key exists (any unique key), without an error. */
  insertOrIgnore<QB>(query: QB): QB
  /**
   * `SELECT … FOR UPDATE` where concurrent transactions run side by side and a row lock orders them;
   * the query as it is on SQLite, whose one writer at a time orders them already.
   */
  forUpdate<QB>(query: QB): QB
  /** A 64-bit integer expression as a signed number (MySQL's bit operators answer unsigned ones). */
  signed(expression: RawBuilder<unknown>): RawBuilder<number>
  /** Bits of `a` kept by the constant `mask` (the operands typed, where parameters have no type). */
  bitAnd(a: RawBuilder<unknown>, mask: number): RawBuilder<number>
  /**
   * The count slot of the server the connection is on (db/mysql-session.ts): a number of its own on
   * each node of a Galera cluster, 0 on every other server.
   */
  readonly countSlot: RawBuilder<number>
  /** `column` contains `text` (a plain substring, any case): the console's searches. */
  containsText(column: string, text: string): RawBuilder<SqlBool>
  /** `column` contains `text`, case as it is. */
  containsExact(column: string, text: string): RawBuilder<SqlBool>
  /** Whether INSERT/UPDATE … RETURNING exists. */
  readonly returning: boolean
  /**
   * Whether a statement that failed inside a transaction (a unique key refusing an insert, say)
   * leaves the transaction usable. PostgreSQL aborts the whole transaction instead: a failure meant
   * to be caught there runs inside a savepoint (db/savepoint.ts).
   */
  readonly survivesFailedStatement: boolean
  /**
   * A call of the stored routine `name` that answers rows (a procedure's result set on MySQL, a
   * set-returning function on PostgreSQL): one round trip for work the routine does on the server.
   * Only where `routines` says the engine has them; `schema`: a game's database or schema (db/games.ts).
   */
  callRoutine(name: string, args: readonly unknown[], schema?: string): RawBuilder<unknown>
  /**
   * Whether the engine keeps stored routines: not SQLite, which runs in the process, where a round
   * trip costs nothing to save.
   */
  readonly routines: boolean
  /** DROP INDEX names the table on MySQL; the others refuse it. */
  dropIndex(db: Kysely<any>, name: string, table: string): { execute(): Promise<unknown> }
  readonly errors: ErrorClasses
  /**
   * What an error met while opening the database at start (its first connection, or the migrations)
   * means, with what to do next; null for an error that is not about reaching the server, the
   * database or the account (it is then reported as it came).
   */
  explainStartError(error: unknown, target: StartTarget): StartProblem | null
  /**
   * The commands that back up a database of this engine and restore it, for `npm run backup` to
   * print (the password never among them); null for the engine `npm run backup` copies itself.
   */
  backupAdvice(target: BackupTarget, file: string): string | null
  /** The Kysely adapter class that marks a database of this engine. */
  readonly adapter: abstract new (...args: never[]) => DialectAdapter
}
