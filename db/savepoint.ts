import { sql } from 'kysely'
import type { Db } from './types.js'
import { engineOf } from './engines/index.js'

/**
 * Runs `statement`, whose failure the caller means to catch and go on from (a unique key refusing a
 * duplicate, say), so that the transaction `db` survives that failure on every engine. MySQL and
 * SQLite undo only the failed statement; PostgreSQL marks the whole transaction failed (25P02: every
 * later statement is refused until the rollback). There the statement runs inside a savepoint, rolled
 * back to when it fails: two more round trips, paid only on PostgreSQL and only inside a transaction.
 * Outside one, each statement is its own transaction and nothing is left to save.
 */
export async function guarded<T>(db: Db, statement: () => Promise<T>): Promise<T> {
  if (!db.isTransaction || engineOf(db).survivesFailedStatement) return statement()
  // One name for every level: a nested savepoint of the same name hides the outer one until released.
  await sql`savepoint outpost_guard`.execute(db)
  let result: T
  try {
    result = await statement()
  } catch (error) {
    await sql`rollback to savepoint outpost_guard`.execute(db)
    await sql`release savepoint outpost_guard`.execute(db)
    throw error
  }
  await sql`release savepoint outpost_guard`.execute(db)
  return result
}
