// A PostgreSQL end of `migrate-data` (the others: data-stores.ts). Tables, columns, keys and identity
// columns are read from the catalog of the connection's schema; values cross as the other stores carry
// them: bigints as numbers (as BigInt past 2^53, never rounded), doubles as doubles (PostgreSQL writes
// the shortest text that reads back to the same double), bytea as Buffers, text as text.
import pg from 'pg'
import { postgresTls } from '../../db/tls.js'
import { id, INTERNAL, InUseError, plain, type Row, type ServerTarget, type TargetStore } from './stores.js'

/** PostgreSQL's type ids of `bigint` (int8) and `numeric`, which node-postgres answers as text. */
const INT8 = 20
const NUMERIC = 1700

/** Integers exact: as numbers where a number holds them, else as BigInt (plain() in data-stores.ts). */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    (oid === INT8 || oid === NUMERIC) && format !== 'binary'
      ? (text: string) => (/^-?\d+$/.test(text) ? plain(BigInt(text)) : Number(text))
      : pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
}

/** A statement takes at most 65535 parameters (the protocol counts them in 16 bits). */
const MAX_PARAMETERS = 65_535
/** Statements of about this much data at most: large rows (saves, evidence) go a few at a time. */
const INSERT_BYTES = 4 * 1024 * 1024

const q = (name: string) => `"${id(name)}"`

/** A store over a server engine that quotes names with double quotes; kept apart for its catalog queries. */
export async function openPostgres(target: ServerTarget, role: 'source' | 'target'): Promise<TargetStore> {
  const client = new pg.Client({
    host: target.host,
    port: target.port,
    user: target.user || undefined,
    password: target.password,
    database: target.database,
    connectionTimeoutMillis: 10_000,
    application_name: 'outpost-migrate-data',
    types,
    // As the URL says (false: plain TCP), never PGSSLMODE from the environment.
    ssl: postgresTls(target.tls),
  })
  // A connection lost between two statements is reported by the next one; unhandled, it would end the process.
  client.on('error', () => {})
  await client.connect()
  const rows = async (text: string, params: unknown[] = []): Promise<unknown[][]> =>
    (await client.query<unknown[]>({ text, values: params, rowMode: 'array' })).rows
  try {
    // A game's schema: every unqualified name below is the game's table (a schema not made yet has none).
    if (target.game) await client.query(`set search_path to ${q(target.game.schema)}`)
    if (role === 'source' && !target.game) {
      // Another client on this database is most likely a running server writing into it.
      const n = Number(
        (
          await rows(
            `select count(*) from pg_stat_activity
              where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'`,
          )
        )[0]![0],
      )
      if (n > 0) {
        throw new InUseError(
          `database ${target.database} has ${n} other connection(s) (a running Outpost server?): stop the server, then run the move again`,
        )
      }
    }
    if (role === 'source') {
      // One snapshot for the whole read: every table as of the same moment.
      await client.query('start transaction isolation level repeatable read, read only')
    }
  } catch (error) {
    await client.end()
    throw error
  }
  const schema = 'table_schema = current_schema()'
  /** The identity (or serial) column of each table that has one, and the sequence behind it. */
  const identities = async () => {
    const found = await rows(
      `select table_name, column_name, pg_get_serial_sequence(quote_ident(table_name), column_name)
         from information_schema.columns
        where ${schema} and (is_identity = 'YES' or column_default like 'nextval(%')`,
    )
    return found.map(([table, column, sequence]) => ({
      // pg_get_serial_sequence quotes the name as SQL needs it (schema.name).
      table: String(table),
      column: String(column),
      sequence: String(sequence),
    }))
  }
  return {
    description: `PostgreSQL database ${target.database}${target.game ? `, schema ${target.game.schema},` : ''} at ${target.host}:${target.port}`,
    wholeMove: true,
    async tables() {
      const names = await rows(
        `select table_name from information_schema.tables where ${schema} and table_type = 'BASE TABLE' order by table_name`,
      )
      return names.map((r) => String(r[0])).filter((n) => !INTERNAL.test(n))
    },
    async shape(table) {
      const columns = await rows(
        `select column_name from information_schema.columns where ${schema} and table_name = $1 order by ordinal_position`,
        [table],
      )
      const pk = await rows(
        `select k.column_name from information_schema.table_constraints c
           join information_schema.key_column_usage k
             on k.constraint_schema = c.constraint_schema and k.constraint_name = c.constraint_name
          where c.${schema} and c.table_name = $1 and c.constraint_type = 'PRIMARY KEY'
          order by k.ordinal_position`,
        [table],
      )
      return { columns: columns.map((r) => String(r[0])), primaryKey: pk.map((r) => String(r[0])) }
    },
    async foreignKeys() {
      const fks = await rows(
        `select child.relname, parent.relname from pg_constraint k
           join pg_class child on child.oid = k.conrelid
           join pg_class parent on parent.oid = k.confrelid
          where k.contype = 'f' and child.relnamespace = current_schema()::regnamespace`,
      )
      return fks.map((r) => [String(r[0]), String(r[1])] as [string, string])
    },
    async count(table) {
      return Number((await rows(`select count(*) from ${q(table)}`))[0]![0])
    },
    async page(table, shape, after, limit) {
      const key = shape.primaryKey.map(q)
      const params = (after ?? []).map((_, i) => `$${i + 1}`)
      // A row comparison, (a, b) > ($1, $2): the order of ORDER BY a, b, read on from the last row.
      const where = after ? ` where (${key.join(', ')}) > (${params.join(', ')})` : ''
      const text = `select ${shape.columns.map(q).join(', ')} from ${q(table)}${where} order by ${key.join(', ')} limit ${Math.floor(limit)}`
      return (await rows(text, after ?? [])) as Row[]
    },
    async migrations() {
      const [[present]] = await rows("select to_regclass('kysely_migration') is not null")
      if (present !== true) return []
      return (await rows('select name from kysely_migration order by name')).map((r) => String(r[0]))
    },
    async autoIds() {
      const ids = new Map<string, number>()
      for (const { table, sequence } of await identities()) {
        // `last_value` is the last id handed out once `is_called`; before the first, the one to come.
        const [[last, called]] = await rows(`select last_value, is_called from ${sequence}`)
        ids.set(table, called === true ? Number(last) : Number(last) - 1)
      }
      return ids
    },
    async insert(table, columns, values) {
      const head = `insert into ${q(table)} (${columns.map(q).join(', ')}) values `
      const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / columns.length))
      let chunk: Row[] = []
      let bytes = 0
      const flush = async () => {
        const tuples = chunk.map((_, r) => `(${columns.map((__, c) => `$${r * columns.length + c + 1}`).join(', ')})`)
        await client.query(head + tuples.join(', '), chunk.flat())
        chunk = []
        bytes = 0
      }
      for (const row of values) {
        const size = row.reduce<number>((n, v) => n + (Buffer.isBuffer(v) ? v.length : String(v).length * 2) + 4, 0)
        if (chunk.length > 0 && (chunk.length === perStatement || bytes + size > INSERT_BYTES)) await flush()
        chunk.push(row)
        bytes += size
      }
      if (chunk.length > 0) await flush()
    },
    async deleteAll(table) {
      await client.query(`delete from ${q(table)}`)
    },
    async setAutoId(table, lastId) {
      // Rows copied with their ids leave an identity's sequence where it was: it is moved past both the
      // largest id copied and the last one the source handed out (an entry swept since must not come back).
      for (const { column, sequence } of (await identities()).filter((i) => i.table === table)) {
        const [[largest]] = await rows(`select coalesce(max(${q(column)}), 0) from ${q(table)}`)
        const last = Math.max(Math.floor(lastId), Number(largest))
        // setval(…, 0) is refused (a sequence starts at 1): "not called yet" says the next id is 1.
        if (last > 0) await client.query('select setval($1::regclass, $2, true)', [sequence, last])
        else await client.query('select setval($1::regclass, 1, false)', [sequence])
      }
    },
    async begin() {
      await client.query('begin')
    },
    async commit() {
      await client.query('commit')
    },
    async rollback() {
      await client.query('rollback')
    },
    async close() {
      await client.end()
    },
  }
}
