import { MysqlAdapter, sql, type InsertQueryBuilder, type SelectQueryBuilder } from 'kysely'
import type { Engine } from '../engine.js'
import { POOL_WAIT_TIMEOUT, QUERY_TIMEOUT } from '../mysql-driver.js'
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
  // utf8mb4_unicode_ci columns compare without case already.
  containsText: (column, text) => sql`${sql.ref(column)} like ${likePattern(text)} escape '!'`,
  containsExact: (column, text) => sql`instr(${sql.ref(column)}, ${text}) > 0`,
  returning: false,
  survivesFailedStatement: true,
  dropIndex: (db, name, table) => db.schema.dropIndex(name).on(table),
  errors: {
    unique: (e) => e.errno === 1062,
    foreignKey: (e) => e.errno === 1452,
    conflict: (e) => e.errno === DEADLOCK || e.errno === LOCK_WAIT_TIMEOUT,
    lockTimeout: (e) => e.errno === LOCK_WAIT_TIMEOUT,
    timeout: (e) => e.code === QUERY_TIMEOUT || e.code === POOL_WAIT_TIMEOUT || e.errno === LOCK_WAIT_TIMEOUT,
    unavailable: (e) =>
      (e.code !== undefined && UNAVAILABLE_CODES.has(e.code)) || e.fatal === true || e.message === 'Pool is closed.',
  },
}
