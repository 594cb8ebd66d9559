// The ends of `migrate-data`: an Outpost database on SQLite or MySQL (PostgreSQL: postgres-store.ts),
// read page by page in primary-key order and written in batches. Values cross as they are stored:
// integers as numbers (as BigInt past 2^53), doubles as doubles (MySQL's binary protocol: no decimal
// text on the way), blobs as Buffers, text as text. Every timestamp is an integer of milliseconds, so
// dates are integers here too.
import SQLite from 'better-sqlite3'
import { createConnection, type Connection } from 'mysql2/promise'
import { createPrivateFile } from '../../db/private-file.js'
import type { DbConfig } from '../../db/index.js'
import { mysqlTls } from '../../db/tls.js'

/** A column value as every engine's driver can bind it. */
export type Value = string | number | bigint | Buffer | null
/** A row's values in the order of its table's columns, so rows copy without naming keys. */
export type Row = Value[]

/** A table's columns and key as the catalog reports them, compared across the two databases. */
export interface TableShape {
  columns: string[]
  primaryKey: string[]
}

/** One Outpost database, as the move sees it. */
export interface Store {
  readonly description: string
  /**
   * Whether the move writes into this database in one transaction (all or nothing): SQLite, whose one
   * writer makes it cheap, and PostgreSQL, whose row versions need no undo log that grows with it.
   * MySQL commits per batch instead, to keep InnoDB's undo log small, and is emptied again on failure.
   */
  readonly wholeMove: boolean
  /** The tables, less the migrator's own (kysely_migration*, migration_steps, migration_lock) and the engine's (sqlite_*). */
  tables(): Promise<string[]>
  shape(table: string): Promise<TableShape>
  /** Foreign keys as [child table, parent table]. */
  foreignKeys(): Promise<Array<[string, string]>>
  count(table: string): Promise<number>
  /** Rows with a primary key after `after` (all when undefined), in key order. */
  page(table: string, shape: TableShape, after: Row | undefined, limit: number): Promise<Row[]>
  /** The migrations applied to this database, by name. */
  migrations(): Promise<string[]>
  /** The last id an auto-increment column handed out (0 when none), for the tables that have one. */
  autoIds(): Promise<Map<string, number>>
  close(): Promise<void>
}

/** A store the move may write to: a source store that also inserts and clears. */
export interface TargetStore extends Store {
  /** Writes the rows; `columns` in the order of each row's values. */
  insert(table: string, columns: string[], rows: Row[]): Promise<void>
  deleteAll(table: string): Promise<void>
  /** The next auto-increment id is past `lastId`. */
  setAutoId(table: string, lastId: number): Promise<void>
  /** A transaction: the whole move's where `wholeMove` says so, else one batch's. */
  begin(): Promise<void>
  commit(): Promise<void>
  rollback(): Promise<void>
}

/**
 * The migration bookkeeping, the read hosts' heartbeat (db/read-hosts.ts) and the engine's tables:
 * the target makes its own, they are never copied.
 */
export const INTERNAL =
  /^(kysely_migration|kysely_migration_lock|migration_steps|migration_lock|db_heartbeat|sqlite_.*)$/

const NAME = /^[a-z_][a-z0-9_]*$/
/** A table or column name, checked to be one before it goes into SQL text. */
export function id(name: string): string {
  if (!NAME.test(name)) throw new Error(`not a table or column name: ${name}`)
  return name
}

/** Integers past 2^53 stay BigInt; the rest become numbers. */
export function plain(value: unknown): Value {
  if (typeof value === 'bigint') {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value
  }
  return value as Value
}

const keyAfter = (pk: string[], quote: (n: string) => string) =>
  pk.length === 1 ? `${quote(pk[0]!)} > ?` : `(${pk.map(quote).join(', ')}) > (${pk.map(() => '?').join(', ')})`

/** Thrown when the database is open in another process: the move must not run beside a server. */
export class InUseError extends Error {}

/** A store over a database file; a new target is created private, as the server creates its own. */
export function openSqlite(path: string, role: 'source' | 'target'): TargetStore {
  // A new target is created private, as the server creates its database.
  if (role === 'target') createPrivateFile(path)
  const db = new SQLite(path, { fileMustExist: role === 'source' })
  db.pragma('busy_timeout = 0')
  if (role === 'source') {
    // An exclusive lock, held until the move ends: refused while another process (a running server,
    // its checkpoint thread, the operator CLI) has the file open, and it keeps them out meanwhile.
    db.pragma('locking_mode = EXCLUSIVE')
    try {
      db.prepare('select count(*) from sqlite_master').get()
    } catch (error) {
      db.close()
      if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY')) {
        throw new InUseError(
          `${path} is open in another process (a running Outpost server?): stop the server, then run the move again`,
        )
      }
      throw error
    }
  } else {
    db.pragma('foreign_keys = ON')
  }
  const statements = new Map<string, SQLite.Statement>()
  const prepare = (text: string) => {
    let statement = statements.get(text)
    if (!statement) statements.set(text, (statement = db.prepare(text)))
    return statement
  }
  const all = (text: string, ...params: unknown[]) =>
    (
      prepare(text)
        .safeIntegers(true)
        .raw(true)
        .all(...params) as unknown[][]
    ).map((r) => r.map(plain))
  const hasTable = (name: string) =>
    prepare("select 1 from sqlite_master where type = 'table' and name = ?").get(name) !== undefined
  return {
    description: `SQLite file ${path}`,
    wholeMove: true,
    async tables() {
      const rows = all("select name from sqlite_master where type = 'table' order by name")
      return rows.map((r) => String(r[0])).filter((n) => !INTERNAL.test(n))
    },
    async shape(table) {
      const info = db.pragma(`table_info(${id(table)})`) as Array<{ name: string; pk: number }>
      return {
        columns: info.map((c) => c.name),
        primaryKey: info
          .filter((c) => c.pk > 0)
          .sort((a, b) => a.pk - b.pk)
          .map((c) => c.name),
      }
    },
    async foreignKeys() {
      const pairs: Array<[string, string]> = []
      for (const table of await this.tables()) {
        for (const fk of db.pragma(`foreign_key_list(${id(table)})`) as Array<{ table: string }>) {
          pairs.push([table, fk.table])
        }
      }
      return pairs
    },
    async count(table) {
      return Number(all(`select count(*) from ${id(table)}`)[0]![0])
    },
    async page(table, shape, after, limit) {
      const q = (n: string) => `"${id(n)}"`
      const where = after ? ` where ${keyAfter(shape.primaryKey, q)}` : ''
      const order = shape.primaryKey.map(q).join(', ')
      const text = `select ${shape.columns.map(q).join(', ')} from ${q(table)}${where} order by ${order} limit ?`
      return all(text, ...(after ?? []), limit) as Row[]
    },
    async migrations() {
      if (!hasTable('kysely_migration')) return []
      return all('select name from kysely_migration order by name').map((r) => String(r[0]))
    },
    async autoIds() {
      const ids = new Map<string, number>()
      const auto = all("select name from sqlite_master where type = 'table' and sql like '%autoincrement%'")
      const sequence = hasTable('sqlite_sequence')
      for (const [name] of auto) {
        const seq = sequence ? all('select seq from sqlite_sequence where name = ?', name) : []
        ids.set(String(name), Number(seq[0]?.[0] ?? 0))
      }
      return ids
    },
    async insert(table, columns, rows) {
      const q = (n: string) => `"${id(n)}"`
      const statement = prepare(
        `insert into ${q(table)} (${columns.map(q).join(', ')}) values (${columns.map(() => '?').join(', ')})`,
      )
      for (const row of rows) statement.run(row)
    },
    async deleteAll(table) {
      prepare(`delete from "${id(table)}"`).run()
    },
    async setAutoId(table, lastId) {
      // The inserts with their ids moved the sequence to the largest copied id; an id handed out and
      // deleted since (the last audit entries swept) must not be handed out again.
      const updated = prepare('update sqlite_sequence set seq = max(seq, ?) where name = ?').run(lastId, table)
      if (updated.changes === 0 && lastId > 0) {
        prepare('insert into sqlite_sequence (name, seq) values (?, ?)').run(table, lastId)
      }
    },
    async begin() {
      db.exec('begin immediate')
    },
    async commit() {
      db.exec('commit')
    },
    async rollback() {
      if (db.inTransaction) db.exec('rollback')
    },
    async close() {
      db.close()
    },
  }
}

/** A database on a server (a `mysql://` or `postgres://` URL: migrate-data.ts reads it). */
export interface ServerTarget {
  host: string
  port: number
  user: string
  password: string
  database: string
  /** TLS to the server, as the DB_SSL and DB_SSL_CA settings give it to Outpost (db/tls.ts). */
  tls: Pick<DbConfig, 'DB_SSL' | 'DB_SSL_CA'>
  /**
   * A game other than `default`: its database on the server (db/games.ts gameSchema), which the store
   * reads and writes in place of `database`. Its server's clients were counted on the default game's.
   */
  game?: { id: string; schema: string }
}

/** Whether a connection failed because its database does not exist (a game's not made yet on the target). */
export function isMissingDatabase(error: unknown): boolean {
  return (error as { code?: string }).code === 'ER_BAD_DB_ERROR'
}

/** A store over a server engine that quotes names with backticks. */
export async function openMysql(target: ServerTarget, role: 'source' | 'target'): Promise<TargetStore> {
  const conn: Connection = await createConnection({
    host: target.host,
    port: target.port,
    user: target.user,
    password: target.password,
    database: target.game?.schema ?? target.database,
    charset: 'UTF8MB4_UNICODE_CI',
    timezone: 'Z',
    supportBigNumbers: true,
    bigNumberStrings: false,
    dateStrings: true,
    connectTimeout: 10_000,
    ssl: mysqlTls(target.tls),
  })
  const q = (n: string) => `\`${id(n)}\``
  const rows = async (text: string, params: unknown[] = []) => {
    // The binary protocol (execute): doubles arrive as their 8 bytes, never through decimal text.
    const [result] = await conn.execute(text, params as never[])
    return (result as object[]).map((r) => Object.values(r) as Value[])
  }
  try {
    await conn.query("set session sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION,NO_AUTO_VALUE_ON_ZERO'")
    await conn.query("set session time_zone = '+00:00'")
    if (role === 'source' && !target.game) {
      // Another connection on this database is most likely a running server writing into it.
      const [others] = await conn.query(
        'select count(*) as n from information_schema.processlist where db = database() and id <> connection_id()',
      )
      const n = Number((others as Array<{ n: number }>)[0]!.n)
      if (n > 0) {
        throw new InUseError(
          `database ${target.database} has ${n} other connection(s) (a running Outpost server?): stop the server, then run the move again`,
        )
      }
    }
    if (role === 'source') {
      // One snapshot for the whole read: every table as of the same moment.
      await conn.query('set session transaction isolation level repeatable read')
      await conn.query('start transaction with consistent snapshot, read only')
    }
  } catch (error) {
    await conn.end()
    throw error
  }
  const schema = 'table_schema = database()'
  return {
    description: `MySQL database ${target.game?.schema ?? target.database} at ${target.host}:${target.port}`,
    wholeMove: false,
    async tables() {
      const names = await rows(`select table_name from information_schema.tables where ${schema} order by table_name`)
      return names.map((r) => String(r[0])).filter((n) => !INTERNAL.test(n))
    },
    async shape(table) {
      const columns = await rows(
        `select column_name from information_schema.columns where ${schema} and table_name = ? order by ordinal_position`,
        [table],
      )
      const pk = await rows(
        `select column_name from information_schema.key_column_usage
          where ${schema} and table_name = ? and constraint_name = 'PRIMARY' order by ordinal_position`,
        [table],
      )
      return { columns: columns.map((r) => String(r[0])), primaryKey: pk.map((r) => String(r[0])) }
    },
    async foreignKeys() {
      const fks = await rows(
        `select table_name, referenced_table_name from information_schema.key_column_usage
          where ${schema} and referenced_table_name is not null`,
      )
      return fks.map((r) => [String(r[0]), String(r[1])] as [string, string])
    },
    async count(table) {
      return Number((await rows(`select count(*) from ${q(table)}`))[0]![0])
    },
    async page(table, shape, after, limit) {
      const where = after ? ` where ${keyAfter(shape.primaryKey, q)}` : ''
      const order = shape.primaryKey.map(q).join(', ')
      // LIMIT as text: a bound LIMIT is refused by some servers' prepared statements.
      const text = `select ${shape.columns.map(q).join(', ')} from ${q(table)}${where} order by ${order} limit ${Math.floor(limit)}`
      const [result, fields] = await conn.execute(
        { sql: text, rowsAsArray: true },
        (after ?? []).map(toMysql) as never[],
      )
      const big = fields.map((f) => f.columnType === LONGLONG)
      return (result as unknown[][]).map((r) => r.map((v, i) => (big[i] ? bigNumber(v) : (v as Value))))
    },
    async migrations() {
      const present = await rows(`select 1 from information_schema.tables where ${schema} and table_name = ?`, [
        'kysely_migration',
      ])
      if (present.length === 0) return []
      return (await rows('select name from kysely_migration order by name')).map((r) => String(r[0]))
    },
    async autoIds() {
      const auto = await rows(
        `select t.table_name, t.auto_increment from information_schema.tables t
          join information_schema.columns c on c.table_schema = t.table_schema and c.table_name = t.table_name
          where t.${schema} and c.extra like '%auto_increment%'`,
      )
      return new Map(auto.map((r) => [String(r[0]), Math.max(0, Number(r[1] ?? 1) - 1)]))
    },
    async insert(table, columns, values) {
      // Statements of at most about INSERT_BYTES of SQL text, well inside the server's max_allowed_packet
      // (bytes travel as hex, twice their size).
      const text = `insert into ${q(table)} (${columns.map(q).join(', ')}) values ?`
      let chunk: Row[] = []
      let bytes = 0
      for (const row of values) {
        const size = row.reduce<number>((n, v) => n + (Buffer.isBuffer(v) ? 2 * v.length : String(v).length * 2) + 4, 0)
        if (chunk.length > 0 && bytes + size > INSERT_BYTES) {
          await conn.query(text, [chunk.map((r) => r.map(toMysql))])
          chunk = []
          bytes = 0
        }
        chunk.push(row)
        bytes += size
      }
      if (chunk.length > 0) await conn.query(text, [chunk.map((r) => r.map(toMysql))])
    },
    async deleteAll(table) {
      await conn.query(`delete from ${q(table)}`)
    },
    async setAutoId(table, lastId) {
      await conn.query(`alter table ${q(table)} auto_increment = ${Math.floor(lastId) + 1}`)
    },
    async begin() {
      await conn.query('start transaction')
    },
    async commit() {
      await conn.query('commit')
    },
    async rollback() {
      await conn.query('rollback')
    },
    async close() {
      await conn.end()
    },
  }
}

const INSERT_BYTES = 4 * 1024 * 1024

/** MySQL's BIGINT column type. */
const LONGLONG = 8

/** mysql2 answers a BIGINT past 2^53 as its digits (supportBigNumbers): back to BigInt, exact. */
function bigNumber(value: unknown): Value {
  return typeof value === 'string' ? plain(BigInt(value)) : (value as Value)
}

/** mysql2 writes a BigInt's digits as a quoted string, which MySQL reads back as the exact integer. */
const toMysql = (value: Value) => (typeof value === 'bigint' ? value.toString() : value)
