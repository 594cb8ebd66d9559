import { CompiledQuery, sql, type Compilable, type Kysely, type QueryResult } from 'kysely'
import type { Db } from './types.js'
import { affected } from './dialect.js'
import { engineOf } from './engines/index.js'
import { schemaOf } from './game-schema.js'
import { isBusy } from './sqlite-driver.js'

/**
 * Queries for the hot paths, built with Kysely once and then run with new values.
 *
 * Building and compiling a Kysely query costs about as much as SQLite takes to run an indexed one,
 * and the driver adds a lock and a few promise hops on top. A prepared query is built once per
 * dialect with placeholders in place of its values, so a request only fills the values in. On
 * SQLite, when no transaction holds the connection, it runs the cached statement directly: the
 * driver's lock exists only to keep other queries out of an open transaction, and synchronous code
 * cannot interleave with anything. On a database server it runs on a pool connection of its own,
 * straight through our driver, as a server-side prepared statement (`MysqlConnection.run`,
 * `PostgresConnection.run`). Inside a transaction that `inTransaction` opened it runs directly on the
 * transaction's connection (see `runPreparedDirectly`); in any other it goes through Kysely as usual.
 *
 * Values must be scalars that Kysely passes through as bound parameters (strings, numbers, null):
 * an `in` list or a LIMIT is part of the query's shape, so key such variants in a `preparedFamily`.
 */
class Placeholder {
  constructor(readonly name: string) {}
}

/** What `createDb` registers for a SQLite database: the connection's cached statements. */
export interface SqliteDirect {
  inTransaction(): boolean
  /** Runs one statement now; throws SQLITE_BUSY when another process holds the write lock. */
  run(sqlText: string, parameters: readonly unknown[]): QueryResult<any>
}

/** What `createDb` registers for a database server: its driver, which runs a statement on a pool connection. */
export interface PooledDirect {
  runAlone<R>(sqlText: string, parameters: readonly unknown[], prepare?: boolean): Promise<QueryResult<R>>
}

/** A connection of our pooled drivers (MysqlConnection, PostgresConnection). */
interface DirectConnection {
  run<R>(sqlText: string, parameters: readonly unknown[], prepare?: boolean): Promise<QueryResult<R>>
}

const direct = new WeakMap<Db, SqliteDirect>()
const pooledDirect = new WeakMap<Db, PooledDirect>()

/** Tells prepared() the embedded driver behind a handle, so its statements run without Kysely's compile step. */
export function registerSqliteDirect(db: Db, sqlite: SqliteDirect): void {
  direct.set(db, sqlite)
}

/** Tells prepared() the pooled driver behind a handle, for the same direct path on server engines. */
export function registerPooledDirect(db: Db, driver: PooledDirect): void {
  pooledDirect.set(db, driver)
}

/** The embedded driver behind a handle, if any (a SQLite game's marked handle shares its file's). */
export function sqliteDirectOf(db: Db): SqliteDirect | undefined {
  return direct.get(db)
}

/** The pooled driver behind a handle, if any (a game's handle shares its default's: db/games.ts). */
export function pooledDirectOf(db: Db): PooledDirect | undefined {
  return pooledDirect.get(db)
}

type Run = (sqlText: string, parameters: readonly unknown[]) => QueryResult<any> | Promise<QueryResult<any>>

/** Open transactions, with their connection's statement runner. */
const openTransactions = new WeakMap<Db, Run>()

/**
 * Lets the prepared queries of `trx`, a transaction just opened on `db`, run on its connection
 * directly until the returned function is called (before the commit). The transaction holds the
 * connection meanwhile (on SQLite the driver's lock, on a server a pool connection of its own); going
 * through Kysely again for each statement would only add its layers.
 */
export async function runPreparedDirectly(db: Db, trx: Db): Promise<() => void> {
  const sqlite = direct.get(db)
  if (sqlite) {
    openTransactions.set(trx, sqlite.run)
    return () => openTransactions.delete(trx)
  }
  if (!pooledDirect.has(db)) return () => {}
  const connection = (await trx.getExecutor().provideConnection(async (held) => held)) as Partial<DirectConnection>
  if (typeof connection.run !== 'function') return () => {}
  const run = connection.run.bind(connection)
  openTransactions.set(trx, (sqlText, parameters) => run(sqlText, parameters, true))
  return () => openTransactions.delete(trx)
}

interface Compiled {
  sql: string
  /** Each bound parameter: a placeholder to fill in, or a constant the builder put there. */
  slots: readonly unknown[]
}

/** A query compiled once per engine and run with new values: the hot paths skip Kysely's per-call compile. */
export interface PreparedQuery<P, R> {
  execute(db: Db, values: P): Promise<QueryResult<R>>
  all(db: Db, values: P): Promise<R[]>
  first(db: Db, values: P): Promise<R | undefined>
}

/** Compiles `build` once per engine, with placeholders for its values, for queries run on every request. */
export function prepared<P extends object, R>(build: (db: Db, values: P) => Compilable<R>): PreparedQuery<P, R> {
  const placeholders = new Proxy({} as P, { get: (_target, name) => new Placeholder(String(name)) })
  // By engine and game schema: a game's handle writes its schema before each table (db/games.ts).
  const compiled = new Map<string, Compiled>()

  const compile = (db: Db): Compiled => {
    const query = build(db, placeholders).compile()
    return { sql: query.sql, slots: [...query.parameters] }
  }
  const compiledFor = (db: Db): Compiled => {
    const key = `${engineOf(db).name}:${schemaOf(db) ?? ''}`
    let query = compiled.get(key)
    if (!query) compiled.set(key, (query = compile(db)))
    return query
  }

  async function execute(db: Db, values: P): Promise<QueryResult<R>> {
    const { sql, slots } = compiledFor(db)
    const parameters = slots.map((slot) => (slot instanceof Placeholder ? values[slot.name as keyof P] : slot))
    const inOpenTransaction = openTransactions.get(db)
    if (inOpenTransaction) return inOpenTransaction(sql, parameters)
    const pooled = pooledDirect.get(db)
    if (pooled) return pooled.runAlone<R>(sql, parameters, true)
    const sqliteDirect = direct.get(db)
    if (sqliteDirect && !sqliteDirect.inTransaction()) {
      try {
        return sqliteDirect.run(sql, parameters)
      } catch (error) {
        // Another process holds the write lock. The wait for it goes through the driver, which holds
        // the connection meanwhile: a statement retried here after a pause could otherwise run inside
        // a transaction this process opened in that pause, and share its fate.
        if (!isBusy(error)) throw error
      }
    }
    return db.executeQuery<R>(CompiledQuery.raw(sql, parameters))
  }
  return {
    execute,
    all: async (db, values) => (await execute(db, values)).rows,
    first: async (db, values) => (await execute(db, values)).rows[0],
  }
}

/** Prepared queries that differ in shape by a small key (a LIMIT, the length of an `in` list). */
export function preparedFamily<K extends string | number, P extends object, R>(
  build: (key: K) => (db: Db, values: P) => Compilable<R>,
): (key: K) => PreparedQuery<P, R> {
  const members = new Map<K, PreparedQuery<P, R>>()
  return (key) => {
    let member = members.get(key)
    if (!member) {
      member = prepared(build(key))
      members.set(key, member)
    }
    return member
  }
}

/**
 * A prepared INSERT of one row into `table`; when its primary key `key` already exists, it UPDATEs
 * the row's other columns (except `keep`) and adds one to the integer column `counter` instead. One
 * statement, so concurrent calls are serialized by the database and each sees its own counter value,
 * which is returned (`row[counter]` for a fresh row). SQLite and PostgreSQL: ON CONFLICT … DO UPDATE
 * … RETURNING. MySQL has no RETURNING: ON DUPLICATE KEY UPDATE sets the counter through LAST_INSERT_ID(expr),
 * which the server reports back as the statement's insert id; the affected-row count (1 insert,
 * 2 update) tells which branch ran.
 */
export function preparedCounterUpsert<R extends Record<string, unknown>>(
  table: string,
  columns: ReadonlyArray<keyof R & string>,
  {
    key,
    counter,
    keep = [],
  }: { key: keyof R & string; counter: keyof R & string; keep?: ReadonlyArray<keyof R & string> },
): (db: Db, row: R) => Promise<number> {
  const updated = columns.filter((c) => c !== key && c !== counter && !keep.includes(c))
  const query = prepared((db: Db, p: R) => {
    const insert = (db as unknown as Kysely<any>)
      .insertInto(table)
      .values(Object.fromEntries(columns.map((c) => [c, p[c]])))
    const engine = engineOf(db)
    const set: Record<string, unknown> = Object.fromEntries(updated.map((c) => [c, engine.newValue(c)]))
    const stored = engine.stored(table, counter)
    if (!engine.returning) {
      set[counter] = sql`last_insert_id(${stored} + 1)`
      return engine.onConflictUpdate(insert, [key], set)
    }
    set[counter] = sql`${stored} + 1`
    return engine
      .onConflictUpdate(insert, [key], set)
      .returning(sql<number>`${sql.ref(`${table}.${counter}`)}`.as('counter'))
  })
  return async (db, row) => {
    const result = await query.execute(db, row)
    if (!engineOf(db).returning) return affected(result) === 1 ? Number(row[counter]) : Number(result.insertId)
    return Number((result.rows[0] as unknown as { counter: number | string }).counter)
  }
}
