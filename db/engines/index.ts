import type { Kysely, DialectAdapter } from 'kysely'
import { ENGINE_NAMES, type Engine, type EngineName } from '../engine.js'
import { mysqlEngine } from './mysql.js'
import { postgresEngine } from './postgres.js'
import { sqliteEngine } from './sqlite.js'

/** Every engine, by the name DB_DRIVER gives it. */
export const ENGINES: Readonly<Record<EngineName, Engine>> = {
  sqlite: sqliteEngine,
  mysql: mysqlEngine,
  postgres: postgresEngine,
}

/** The engine DB_DRIVER names; an unknown name is an error, never a fallback. */
export function engineNamed(name: string): Engine {
  const engine = (ENGINES as Record<string, Engine>)[name]
  if (!engine) throw new Error(`DB_DRIVER must be one of ${ENGINE_NAMES.join(', ')} (got "${name}")`)
  return engine
}

const byAdapter = new WeakMap<DialectAdapter, Engine>()

/** The engine of a database (or of a transaction on it), told by its Kysely adapter. */
export function engineOf(db: Kysely<any>): Engine {
  const adapter = db.getExecutor().adapter
  let engine = byAdapter.get(adapter)
  if (!engine) {
    engine = Object.values(ENGINES).find((candidate) => adapter instanceof candidate.adapter)
    if (!engine) throw new Error(`no engine in db/engines/ has the adapter ${adapter.constructor.name}`)
    byAdapter.set(adapter, engine)
  }
  return engine
}

export type { Engine, EngineName }
