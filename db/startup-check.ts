import { sql } from 'kysely'
import { whereSet } from '../config.js'
import type { StartTarget } from './engine.js'
import { tlsRequired } from './engine-advice.js'
import { engineNamed } from './engines/index.js'
import { createDb, isDatabaseServer, type DbConfig } from './index.js'

/** The configuration as the engines' start-up messages read it, each setting's source included. */
function startTarget(config: DbConfig): StartTarget {
  return { ...config, where: (name) => whereSet(config, name) }
}

/**
 * The error to report for a database problem at start, explained by the configured engine
 * (db/engines/) when it can be, as it came otherwise.
 */
export function explainDbError(error: unknown, config: DbConfig): unknown {
  const problem = engineNamed(config.DB_DRIVER).explainStartError(error, startTarget(config))
  return problem ? new Error(problem.message, { cause: error }) : error
}

/** The shortest wait of the start's connection check. */
export const START_CHECK_MIN_MS = 10_000

/** One `select 1` on a pool of one connection of its own, ended after. */
async function connectOnce(config: DbConfig): Promise<void> {
  const db = createDb(config)
  try {
    await sql`select 1`.execute(db)
  } finally {
    await db.destroy()
  }
}

/**
 * Before the migrations: one connection to the database server within DB_QUERY_TIMEOUT_MS (10 s at
 * least), so that a wrong host, port, account, database name or TLS setting is reported as such (the
 * migrations' own connection waits much longer, and their errors would read as a failed migration).
 * SQLite needs no such check: opening the file is it.
 */
export async function checkDatabase(config: DbConfig): Promise<void> {
  if (!isDatabaseServer(config)) return
  // At least 10 s: a server busy at the moment of the start is not a wrong address.
  const bounded = {
    ...config,
    DB_POOL_SIZE: 1,
    DB_QUERY_TIMEOUT_MS: Math.max(config.DB_QUERY_TIMEOUT_MS, START_CHECK_MIN_MS),
  }
  try {
    await connectOnce(bounded)
  } catch (error) {
    const engine = engineNamed(config.DB_DRIVER)
    const target = startTarget(bounded)
    const problem = engine.explainStartError(error, target)
    if (!problem) throw error
    // A server that takes this account only over TLS refuses a plain connection as it refuses a wrong
    // password (MariaDB's require_secure_transport answers "access denied"): one try over TLS tells.
    if (problem.refused && config.DB_SSL === 'off' && (await acceptsTls(bounded))) {
      throw new Error(tlsRequired(engine.title, target), { cause: error })
    }
    throw new Error(problem.message, { cause: error })
  }
}

/** Whether the server lets this account in over TLS (its certificate not checked: only the answer counts). */
async function acceptsTls(config: DbConfig): Promise<boolean> {
  try {
    await connectOnce({ ...config, DB_SSL: 'require' })
    return true
  } catch {
    return false
  }
}
