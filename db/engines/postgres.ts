import { PostgresAdapter, sql, type InsertQueryBuilder, type SelectQueryBuilder } from 'kysely'
import type { Engine } from '../engine.js'
import { POOL_WAIT_TIMEOUT, QUERY_TIMEOUT } from '../mysql-driver.js'
import { likePattern } from './sqlite.js'

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
  adapter: PostgresAdapter,
  // PostgreSQL compares text byte for byte unless told otherwise (its collations are deterministic).
  types: { key: (length) => sql.raw(`varchar(${length})`), longText: 'text', blob: sql`bytea` },
  autoId: (table, column) => table.addColumn(column, 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity()),
  newValue: (column) => sql.ref(`excluded.${column}`),
  // The target table and `excluded` are both in scope there: a bare column name is ambiguous (42702).
  stored: (table, column) => sql.ref(`${table}.${column}`),
  onConflictUpdate: (query, key, set) =>
    (query as InsertQueryBuilder<any, any, any>).onConflict((oc) =>
      oc.columns(key as string[]).doUpdateSet(set),
    ) as never,
  insertOrIgnore: (query) => (query as InsertQueryBuilder<any, any, any>).onConflict((oc) => oc.doNothing()) as never,
  forUpdate: (query) => (query as SelectQueryBuilder<any, any, any>).forUpdate() as never,
  signed: (expression) => sql<number>`${expression}`,
  // A bound parameter has no type of its own: `$1 & 255` would be ambiguous.
  bitAnd: (a, mask) => sql<number>`(cast(${a} as bigint) & ${sql.lit(mask)})`,
  containsText: (column, text) => sql`${sql.ref(column)} ilike ${likePattern(text)} escape '!'`,
  containsExact: (column, text) => sql`strpos(${sql.ref(column)}, ${text}) > 0`,
  returning: true,
  survivesFailedStatement: false,
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
  },
}
