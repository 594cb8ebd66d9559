import type { Db } from './types.js'

/**
 * Every statement a database sends, told to a listener: the tests count statements per request with
 * it, so the hot paths cannot grow new round trips unnoticed. One listener at a time; the drivers
 * look it up on each statement (one property read when nobody listens).
 */
export interface StatementTap {
  listener: ((sqlText: string) => void) | null
}

const taps = new WeakMap<Db, StatementTap>()

/** Called by `createDb`: the tap its driver reports to. */
export function registerStatementTap(db: Db, tap: StatementTap): void {
  taps.set(db, tap)
}

/** Calls `listener` with the text of each statement `db` sends until the returned function is called. */
export function watchStatements(db: Db, listener: (sqlText: string) => void): () => void {
  const tap = taps.get(db)
  if (!tap) throw new Error('this database was not made by createDb: its statements cannot be watched')
  tap.listener = listener
  return () => {
    if (tap.listener === listener) tap.listener = null
  }
}
