// The copy of `migrate-data`: every table of an Outpost database into another, emptied of nothing but
// what the migrations seed, parents before children, ids as they are, with the counts checked after.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Config } from '../../config.js'
import { PLATFORM_TABLES, type Database } from '../../db/types.js'
import { createDb, MIGRATION_QUERY_TIMEOUT_MS } from '../../db/index.js'
import { migrateToLatest } from '../../db/migrate.js'
import { FEATURES, MIGRATIONS } from '../../app.js'
import { openSqlite, type Row, type Store, type TableShape, type TargetStore, type Value } from './stores.js'

/**
 * Every table the move copies: the platform's and those each feature's manifest names (app.ts
 * FEATURES), so a new feature's table is moved with no edit here. The order comes from the database's
 * own foreign keys (`inKeyOrder`), read when the move starts.
 */
export const TABLES: readonly (keyof Database)[] = [
  ...PLATFORM_TABLES,
  ...FEATURES.flatMap((feature) => feature.manifest.tables),
]

/** Holds a schema to the list: a table unknown to it or missing from the schema stops the move. */
export function checkTables(present: string[], where: string, list: readonly string[] = TABLES): void {
  const unknown = present.filter((t) => !list.includes(t))
  if (unknown.length > 0) {
    throw new Error(
      `${where} has table(s) the move does not know: ${unknown.join(', ')}. Nothing was copied: ` +
        "name each in the `tables` of its feature's manifest (features/<name>/index.ts)",
    )
  }
  const missing = list.filter((t) => !present.includes(t))
  if (missing.length > 0) throw new Error(`${where} lacks table(s) ${missing.join(', ')}: is it an Outpost database?`)
}

/** Every foreign key points to a table copied earlier (else the target would refuse the child's rows). */
export function checkOrder(foreignKeys: Array<[string, string]>, list: readonly string[] = TABLES): void {
  for (const [child, parent] of foreignKeys) {
    if (child !== parent && list.indexOf(parent) > list.indexOf(child)) {
      throw new Error(`the move would copy ${child} before ${parent}, which its foreign key needs`)
    }
  }
}

/**
 * `tables` in an order the foreign keys allow, each after the tables it points to (and otherwise as
 * listed), so the target takes every child row; a cycle of keys, which no order satisfies, is refused.
 */
export function inKeyOrder(tables: readonly string[], foreignKeys: Array<[string, string]>): string[] {
  const parents = new Map(tables.map((table) => [table, new Set<string>()]))
  for (const [child, parent] of foreignKeys) {
    if (child !== parent && parents.has(parent)) parents.get(child)?.add(parent)
  }
  const ordered: string[] = []
  const placed = new Set<string>()
  while (ordered.length < tables.length) {
    const next = tables.find((t) => !placed.has(t) && [...parents.get(t)!].every((p) => placed.has(p)))
    if (next === undefined) {
      const left = tables.filter((t) => !placed.has(t))
      throw new Error(`the foreign keys of ${left.join(', ')} form a cycle: no order of the copy satisfies them`)
    }
    ordered.push(next)
    placed.add(next)
  }
  return ordered
}

/** A value as text that compares equal across drivers (tests and the seed check use it). */
export function normalize(value: Value | undefined): unknown {
  if (value === null || value === undefined) return null
  if (Buffer.isBuffer(value)) return `bytes:${value.toString('hex')}`
  if (typeof value === 'bigint') return `int:${value.toString()}`
  return value
}

/** Columns that differ between two fresh migrations of the same code (generated ids, the time it ran). */
const SEED_VOLATILE = new Set(['id', 'created_at', 'updated_at'])

const seedKey = (columns: string[], row: Row) =>
  JSON.stringify(columns.flatMap((c, i) => (SEED_VOLATILE.has(c) ? [] : [[c, normalize(row[i])]])))

/** The rows a fresh migration writes (the default board, the system e-mail templates), per table. */
async function seedRows(): Promise<Map<string, Set<string>>> {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-seed-'))
  try {
    const path = join(dir, 'seed.db')
    await migrateTarget({ DB_DRIVER: 'sqlite', DB_PATH: path, DB_QUERY_TIMEOUT_MS: MIGRATION_QUERY_TIMEOUT_MS })
    const store = openSqlite(path, 'target')
    const seeds = new Map<string, Set<string>>()
    try {
      for (const table of await store.tables()) {
        const shape = await store.shape(table)
        const rows = await store.page(table, shape, undefined, MAX_PAGE)
        if (rows.length > 0) seeds.set(table, new Set(rows.map((r) => seedKey(shape.columns, r))))
      }
    } finally {
      await store.close()
    }
    return seeds
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * The target's tables that hold rows other than the migrations' seed: the move refuses such a target
 * (it would mix two databases). Seeded rows alone are replaced by the source's.
 */
export async function nonEmptyTables(
  target: Store,
  order: readonly string[] = TABLES,
): Promise<{ data: string[]; seeded: string[] }> {
  const seeds = await seedRows()
  const data: string[] = []
  const seeded: string[] = []
  const present = await target.tables()
  for (const table of order.filter((t) => present.includes(t))) {
    const n = await target.count(table)
    if (n === 0) continue
    const seed = seeds.get(table)
    const shape = await target.shape(table)
    const rows = seed && n <= seed.size ? await target.page(table, shape, undefined, n) : []
    if (rows.length === n && rows.every((r) => seed!.has(seedKey(shape.columns, r)))) seeded.push(table)
    else data.push(`${table} (${n} rows)`)
  }
  return { data, seeded }
}

/** The source's schema is this code's: every migration applied, none unknown. */
export async function checkMigrations(source: Store): Promise<void> {
  const applied = await source.migrations()
  if (applied.length === 0) throw new Error(`${source.description} is not an Outpost database (no migrations table)`)
  const known = Object.keys(MIGRATIONS)
  const unknown = applied.filter((m) => !known.includes(m))
  if (unknown.length > 0) {
    throw new Error(
      `${source.description} has migrations this Outpost does not know (${unknown.join(', ')}): ` +
        'run the move with the Outpost version that wrote it',
    )
  }
  const pending = known.filter((m) => !applied.includes(m))
  if (pending.length > 0) {
    throw new Error(
      `${source.description} is not migrated to this Outpost (${pending.length} migration(s) pending): ` +
        'run `npm run migrate` on it first (or start this version of the server on it once), then move',
    )
  }
}

/** Rows counted in both databases after a table's move, to show nothing was lost. */
export interface TableResult {
  table: string
  source: number
  target: number
}

/** Where the move tells of its progress; the command draws it, tests ignore it. */
export interface MoveProgress {
  table(name: string, rows: number): void
  rows(done: number): void
}

/** Page sizes adapt to the rows' bytes: many small rows per page, few large saves. */
const MIN_PAGE = 1
const MAX_PAGE = 1000
const PAGE_BYTES = 4 * 1024 * 1024

function rowBytes(row: Row): number {
  let n = 0
  for (const v of row) n += typeof v === 'string' ? v.length * 3 : Buffer.isBuffer(v) ? v.length * 2 : 8
  return n
}

/** Copies one table page by page; the target's writes go in batches of about PAGE_BYTES. */
async function copyTable(
  source: Store,
  target: TargetStore,
  table: string,
  shape: TableShape,
  perBatch: boolean,
  progress?: MoveProgress,
): Promise<void> {
  let after: Row | undefined
  let limit = MIN_PAGE
  let done = 0
  const keyAt = shape.primaryKey.map((k) => shape.columns.indexOf(k))
  for (;;) {
    const rows = await source.page(table, shape, after, limit)
    if (rows.length === 0) break
    let bytes = 0
    for (const row of rows) bytes += rowBytes(row)
    if (perBatch) await target.begin()
    await target.insert(table, shape.columns, rows)
    if (perBatch) await target.commit()
    done += rows.length
    progress?.rows(done)
    if (rows.length < limit) break
    after = keyAt.map((i) => rows[rows.length - 1]![i]!)
    if (bytes < PAGE_BYTES) limit = Math.min(MAX_PAGE, limit * 2)
    else if (bytes > PAGE_BYTES * 2) limit = Math.max(MIN_PAGE, Math.floor(limit / 2))
  }
}

/** Runs the migrations on the target (through the app's own migrator, as a server start would). */
export async function migrateTarget(settings: Partial<Config>): Promise<string[]> {
  const db = createDb({ DB_POOL_SIZE: 2, ...settings, DB_QUERY_TIMEOUT_MS: MIGRATION_QUERY_TIMEOUT_MS } as Config)
  try {
    return await migrateToLatest(db, MIGRATIONS)
  } finally {
    await db.destroy()
  }
}

/**
 * The move itself, once both ends are open and the target is migrated. Refuses (writing nothing) a
 * source or target whose tables differ from TABLES, a source not at this code's schema, a target
 * holding data; then copies every table and answers the row counts of both ends, table by table.
 */
/** A target the move refuses, found before anything is written to it (not even the migrations). */
export async function refuseTarget(target: Store): Promise<void> {
  const unknown = (await target.tables()).filter((t) => !(TABLES as readonly string[]).includes(t))
  if (unknown.length > 0) {
    throw new Error(
      `${target.description} holds tables that are not Outpost's (${unknown.join(', ')}): ` +
        'move into a new, empty database. Nothing was written',
    )
  }
  const { data } = await nonEmptyTables(target)
  if (data.length > 0) throw notEmpty(target, data)
}

const notEmpty = (target: Store, data: string[]) =>
  new Error(
    `${target.description} is not empty: ${data.join(', ')}. Nothing was written. The move fills an empty ` +
      'database only: give it a new one (CREATE DATABASE, as docs/migrating.md shows, or a new file)',
  )

/**
 * The source is an Outpost database of this code's schema, every table of it known to the move: its
 * tables in the order its foreign keys allow.
 */
export async function checkSource(source: Store): Promise<string[]> {
  checkTables(await source.tables(), source.description)
  const order = inKeyOrder(TABLES, await source.foreignKeys())
  await checkMigrations(source)
  return order
}

/** Copies every table from source to target in one go, refusing a target that is not empty. */
export async function moveData(source: Store, target: TargetStore, progress?: MoveProgress): Promise<TableResult[]> {
  const order = await checkSource(source)
  checkTables(await target.tables(), target.description)
  checkOrder(await target.foreignKeys(), order)
  const { data, seeded } = await nonEmptyTables(target, order)
  if (data.length > 0) throw notEmpty(target, data)
  const shapes = new Map<string, TableShape>()
  for (const table of order) {
    const from = await source.shape(table)
    const to = await target.shape(table)
    const missing = from.columns.filter((c) => !to.columns.includes(c))
    const extra = to.columns.filter((c) => !from.columns.includes(c))
    if (missing.length + extra.length > 0 || from.primaryKey.length === 0) {
      throw new Error(
        `table ${table} differs between the two databases (source only: ${missing.join(', ') || '-'}; ` +
          `target only: ${extra.join(', ') || '-'}; primary key: ${from.primaryKey.join(', ') || 'none'})`,
      )
    }
    shapes.set(table, from)
  }
  const sourceAutoIds = await source.autoIds()
  // One transaction where the target takes it well (all or nothing); else a commit per batch, and
  // should the move stop, the tables it wrote are emptied again below.
  const whole = target.wholeMove
  try {
    if (whole) await target.begin()
    for (const table of [...seeded].reverse()) await target.deleteAll(table)
    for (const table of order) {
      progress?.table(table, await source.count(table))
      await copyTable(source, target, table, shapes.get(table)!, !whole, progress).catch((error: Error) => {
        // The database's own words, with the table they are about (a value one engine stores and
        // another refuses, such as a NUL character in text, which PostgreSQL does not store).
        throw new Error(`copying ${table}: ${error.message}`, { cause: error })
      })
    }
    for (const [table, lastId] of sourceAutoIds) await target.setAutoId(table, lastId)
    if (whole) await target.commit()
  } catch (error) {
    if (whole) await target.rollback()
    else {
      await target.rollback().catch(() => {})
      for (const table of [...order].reverse()) await target.deleteAll(table).catch(() => {})
    }
    throw error
  }
  const results: TableResult[] = []
  for (const table of order) {
    results.push({ table, source: await source.count(table), target: await target.count(table) })
  }
  return results
}

/** The table of counts printed at the end, so an operator sees source and target agree. */
export function formatCounts(results: TableResult[]): string {
  const width = Math.max(...results.map((r) => r.table.length))
  const lines = [`${'table'.padEnd(width)}  ${'source'.padStart(9)}  ${'target'.padStart(9)}`]
  for (const r of results) {
    const mark = r.source === r.target ? '' : '  MISMATCH'
    lines.push(`${r.table.padEnd(width)}  ${String(r.source).padStart(9)}  ${String(r.target).padStart(9)}${mark}`)
  }
  const total = results.reduce((n, r) => n + r.source, 0)
  lines.push(
    `${'total'.padEnd(width)}  ${String(total).padStart(9)}  ${String(results.reduce((n, r) => n + r.target, 0)).padStart(9)}`,
  )
  return lines.join('\n')
}
