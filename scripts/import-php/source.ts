// Reading a horizOn Simple Server (the PHP server) database, SQLite or MySQL, page by page. Text is
// read as bytes and decoded strictly: a value that is not UTF-8 comes out as NotUtf8, never as text
// with replacement characters in it, so the import can refuse it rather than store it changed.
import SQLite from 'better-sqlite3'
import { createConnection, type Connection, type TypeCastField } from 'mysql2/promise'

/** A text column whose bytes are not UTF-8 (PHP stores whatever bytes it was given). */
export class NotUtf8 {
  constructor(readonly bytes: Buffer) {}

  /** How a report names it: its bytes, in hex. */
  toString(): string {
    return `<not UTF-8: ${this.bytes.subarray(0, 32).toString('hex')}>`
  }
}

/** A PHP row as its driver returns it, checked column by column before it is copied. */
export type Row = Record<string, unknown>

/** A PHP server's database, read page by page in a stable order. */
export interface PhpSource {
  readonly description: string
  tables(): Promise<Set<string>>
  count(table: string): Promise<number>
  page(table: string, orderBy: string, limit: number, offset: number): Promise<Row[]>
  close(): Promise<void>
}

const IDENTIFIER = /^[a-z_]+$/

function identifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`not a table or column name: ${name}`)
  return name
}

/** Text from its bytes, or NotUtf8 (overlong forms, lone surrogates and cut sequences included). */
export function strictText(bytes: Buffer): string | NotUtf8 {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes)
  } catch {
    return new NotUtf8(bytes)
  }
}

/** Reads a PHP server's database file, refusing a path that does not exist rather than creating one. */
export function openSqliteSource(path: string): PhpSource {
  const db = new SQLite(path, { fileMustExist: true })
  return {
    description: `SQLite file ${path}`,
    async tables() {
      const rows = db.prepare("select name from sqlite_master where type = 'table'").all() as Array<{ name: string }>
      return new Set(rows.map((r) => r.name))
    },
    async count(table) {
      return (db.prepare(`select count(*) as n from ${identifier(table)}`).get() as { n: number }).n
    },
    async page(table, orderBy, limit, offset) {
      // better-sqlite3 would decode text leniently (U+FFFD for bad bytes): text is read as bytes.
      const columns = (db.prepare(`pragma table_info(${identifier(table)})`).all() as Array<{ name: string }>).map(
        (c) => identifier(c.name),
      )
      const select = columns.map((c) => `case when typeof(${c}) = 'text' then cast(${c} as blob) else ${c} end as ${c}`)
      const rows = db
        .prepare(
          `select ${select.join(', ')} from ${identifier(table)} order by ${identifier(orderBy)} limit ? offset ?`,
        )
        .all(limit, offset) as Row[]
      for (const row of rows) {
        for (const [key, value] of Object.entries(row)) if (Buffer.isBuffer(value)) row[key] = strictText(value)
      }
      return rows
    },
    async close() {
      db.close()
    },
  }
}

const TEXT_TYPES = new Set(['VAR_STRING', 'STRING', 'VARCHAR', 'BLOB', 'TINY_BLOB', 'MEDIUM_BLOB', 'LONG_BLOB'])

/** Reads a PHP server's database over its URL, text decoded strictly so a bad byte is refused, not garbled. */
export async function openMysqlSource(url: string): Promise<PhpSource> {
  const parsed = new URL(url)
  const conn: Connection = await createConnection({
    host: parsed.hostname,
    port: Number(parsed.port || 3306),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    database: decodeURIComponent(parsed.pathname.replace(/^\//, '')),
    // DATETIME columns as the text the PHP server wrote (UTC), not as dates in this machine's zone.
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: false,
    charset: 'UTF8MB4_UNICODE_CI',
    connectTimeout: 10_000,
    // Text as bytes, decoded strictly (see NotUtf8).
    typeCast: (field: TypeCastField, next: () => unknown) => {
      if (!TEXT_TYPES.has(field.type)) return next()
      const bytes = field.buffer()
      return bytes === null ? null : strictText(bytes)
    },
  })
  const safeUrl = `${parsed.protocol}//${parsed.host}${parsed.pathname}`
  return {
    description: `MySQL database ${safeUrl}`,
    async tables() {
      const [rows] = await conn.query('show tables')
      return new Set((rows as Row[]).map((r) => String(Object.values(r)[0])))
    },
    async count(table) {
      const [rows] = await conn.query(`select count(*) as n from \`${identifier(table)}\``)
      return Number((rows as Array<{ n: number }>)[0]!.n)
    },
    async page(table, orderBy, limit, offset) {
      const [rows] = await conn.query(
        `select * from \`${identifier(table)}\` order by \`${identifier(orderBy)}\` limit ? offset ?`,
        [limit, offset],
      )
      return rows as Row[]
    },
    async close() {
      await conn.end()
    },
  }
}

/** Whether --from names a server (a URL) rather than a file. */
export function isMysqlUrl(from: string): boolean {
  return /^mysql:\/\//i.test(from)
}
