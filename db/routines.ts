import type { Db } from './types.js'

/**
 * Stored routines found missing on a database (one restored from a dump made without its routines),
 * by name, with the time until which callers do the routine's work without it: a per-database fact,
 * kept here beside the database's other per-handle state (prepared.ts).
 */
const missing = new WeakMap<Db, Map<string, number>>()

/** Whether the routine `name` is to be called on `db` (not marked missing, or its mark has run out). */
export function routineAvailable(db: Db, name: string): boolean {
  const until = missing.get(db)?.get(name)
  return until === undefined || performance.now() >= until
}

/** Marks the routine missing on `db` for `ms` (Infinity: until `markRoutineBack`). */
export function markRoutineMissing(db: Db, name: string, ms: number): void {
  const marks = missing.get(db) ?? new Map<string, number>()
  marks.set(name, performance.now() + ms)
  missing.set(db, marks)
}

/** The routine is there again. */
export function markRoutineBack(db: Db, name: string): void {
  missing.get(db)?.delete(name)
}
