import type { Db } from './types.js'
import { isForeignKeyViolation, isUniqueViolation } from './dialect.js'
import { guarded } from './savepoint.js'

/**
 * How one row brought over from another server (`npm run import:php`) fared in the feature that owns
 * it: written now, already there from an earlier run (the owner's unique key said so), or refused
 * with a reason the operator can act on.
 */
export type ImportOutcome = { status: 'copied' } | { status: 'exists' } | { status: 'refused'; reason: string }

/** The row was new and is now here. */
export const COPIED: ImportOutcome = { status: 'copied' }
/** The row was here already: importing twice copies nothing twice. */
export const EXISTS: ImportOutcome = { status: 'exists' }
/** The row could not be copied (its user is unknown here, …): reported, not fatal to the import. */
export const refused = (reason: string): ImportOutcome => ({ status: 'refused', reason })

/**
 * One imported row's insert on `db`: the owner's unique key answering "already there" makes a second
 * run a no-op, a missing parent row is refused with `missingParent` as the reason, anything else is
 * thrown. A dry run imports inside a transaction, which a refused row must leave usable (`guarded`).
 */
export async function importRow(db: Db, insert: () => Promise<unknown>, missingParent: string): Promise<ImportOutcome> {
  try {
    await guarded(db, insert)
    return COPIED
  } catch (error) {
    if (isUniqueViolation(error)) return EXISTS
    if (isForeignKeyViolation(error)) return refused(missingParent)
    throw error
  }
}
