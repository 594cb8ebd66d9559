import type { Db } from './types.js'

/**
 * Every statement a database sends, told to a listener: the tests count statements per request with
 * it, so the hot paths cannot grow new round trips unnoticed. One listener at a time; the drivers
 * look it up on each statement (one property read when nobody listens). `sent` counts every
 * statement for the metrics (`outpost_db_statements_total`): a number incremented in place, read
 * when Prometheus scrapes.
 */
export interface StatementTap {
  listener: ((sqlText: string) => void) | null
  sent: number
}

const taps = new WeakMap<Db, StatementTap>()

/** Called by `createDb`: the tap its driver reports to. */
export function registerStatementTap(db: Db, tap: StatementTap): void {
  taps.set(db, tap)
}

/** The tap a handle reports to, if `createDb` made it (or a game's handle over its pool). */
export function statementTapOf(db: Db): StatementTap | undefined {
  return taps.get(db)
}

/** Statements `db` has sent since it was made; undefined for a database `createDb` did not make. */
export function statementsSent(db: Db): number | undefined {
  return taps.get(db)?.sent
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
