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
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work)
    } catch (error) {
      if (attempt >= ATTEMPTS || !isRetryableConflict(error)) throw error
      await new Promise((resolve) => setTimeout(resolve, 5 * attempt + Math.random() * 10))
    }
  }
}
