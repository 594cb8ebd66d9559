import type { Transaction } from 'kysely'
import type { Db } from './index.js'
import type { Database } from './types.js'
import { isRetryableConflict } from './dialect.js'

const ATTEMPTS = 4

/**
 * A transaction that is run again when the database aborted it to break a deadlock (InnoDB does
 * that under concurrent writes to neighbouring index ranges). The callback must be safe to repeat:
 * everything it did was rolled back.
 */
export async function inTransaction<T>(db: Db, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return retryOnConflict(() => db.transaction().execute(work))
}

/**
 * A single statement run again when InnoDB picked it as a deadlock victim (it was rolled back
 * whole): two range UPDATEs over one index from two instances can deadlock without any transaction.
 * The statement must be safe to repeat, as a conditional UPDATE is.
 */
export async function retryOnConflict<T>(statement: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await statement()
    } catch (error) {
      if (attempt >= ATTEMPTS || !isRetryableConflict(error)) throw error
      await new Promise((resolve) => setTimeout(resolve, 5 * attempt + Math.random() * 10))
    }
  }
}
