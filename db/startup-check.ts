import { sql } from 'kysely'
import { whereSet } from '../config.js'
import type { StartTarget } from './engine.js'
import { serverAt, tlsRequired } from './engine-advice.js'
import { engineNamed } from './engines/index.js'
import { atHost, dbHosts } from './hosts.js'
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
 * One host's check: null when it answered, else the error to report, explained by the engine when
 * it can be.
 */
async function checkHost(config: DbConfig): Promise<Error | null> {
  try {
    await connectOnce(config)
    return null
  } catch (error) {
    const engine = engineNamed(config.DB_DRIVER)
    const target = startTarget(config)
    const problem = engine.explainStartError(error, target)
    if (!problem) return error as Error
    // A server that takes this account only over TLS refuses a plain connection as it refuses a wrong
    // password (MariaDB's require_secure_transport answers "access denied"): one try over TLS tells.
    if (problem.refused && config.DB_SSL === 'off' && (await acceptsTls(config))) {
      return new Error(tlsRequired(engine.title, target), { cause: error })
    }
    return new Error(problem.message, { cause: error })
  }
}

/**
 * Before the migrations: one connection to the database server within DB_QUERY_TIMEOUT_MS (10 s at
 * least), so that a wrong host, port, account, database name or TLS setting is reported as such (the
 * migrations' own connection waits much longer, and their errors would read as a failed migration).
 * SQLite needs no such check: opening the file is it.
 *
 * With a list of hosts (DB_HOST), every host is checked at once: the start goes on when one answers,
 * and answers the problems of the others, worded for the log (a host down, or one whose account or TLS is
 * wrong, is better known at the start than at the failover that needs it); when none answers, the
 * error names each one's problem.
 */
export async function checkDatabase(config: DbConfig): Promise<string[]> {
  if (!isDatabaseServer(config)) return []
  // At least 10 s: a server busy at the moment of the start is not a wrong address.
  const bounded = {
    ...config,
    DB_POOL_SIZE: 1,
    DB_QUERY_TIMEOUT_MS: Math.max(config.DB_QUERY_TIMEOUT_MS, START_CHECK_MIN_MS),
  }
  const hosts = dbHosts(config)
  const problems = await Promise.all(hosts.map((host) => checkHost(atHost(bounded, host))))
  if (hosts.length === 1) {
    if (problems[0]) throw problems[0]
    return []
  }
  // An error the engine could not explain may not name its host: the line does.
  const said = problems.map((problem, i) => {
    if (!problem) return null
    const at = serverAt(engineNamed(config.DB_DRIVER).title, atHost(config, hosts[i]!))
    return problem.message.includes(at) ? problem.message : `${at}: ${problem.message}`
  })
  if (problems.every(Boolean)) throw new Error(`no host of DB_HOST answers: ${said.join('; ')}`, { cause: problems[0] })
  return said
    .filter((line): line is string => line !== null)
    .map((line) => `a database host of DB_HOST does not answer, the start goes on with the others: ${line}`)
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
