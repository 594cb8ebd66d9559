import type { Db } from './types.js'
import { retryOnConflict } from './transaction.js'

/**
 * Background jobs: maintenance that must not run inside a request (deleting expired rows). A DELETE
 * over a range of rows inside a sign-in took locks that the sign-ins beside it needed, and InnoDB's
 * deadlock answer reached the player as a 500. Each job runs at most once per period across every
 * instance and worker sharing the database: the runner (platform/jobs/runner.ts) takes the period's
 * lease on the job's row in `job_runs` with one conditional UPDATE, which exactly one of them matches.
 */
export interface Job {
  /** The job's row in `job_runs`: unique per job. */
  name: string
  /** At most one run per this many milliseconds, over all instances. */
  everyMs: number
  /** One run; bounded (a job deletes in batches, up to a limit per run). */
  run(db: Db, now: number): Promise<unknown>
  /**
   * Its table is the server's, not a game's (operators' sessions): it runs in the server's database
   * (`default`'s) only, where every other game's copy of the table stays empty.
   */
  serverWide?: boolean
}

/**
 * Deletes the rows `select` finds, by key, in batches of `batch` and at most `maxBatches` of them per
 * call, so a run stays short. The DELETE names each row by its primary key and repeats the expiry
 * condition (`remove`): it locks only those rows, never a range, so it cannot hold a gap a request
 * inserts into, and a row that came back to life meanwhile stays. Returns the number deleted.
 */
export async function deleteInBatches<K>(
  select: (limit: number) => Promise<K[]>,
  remove: (keys: K[]) => Promise<number>,
  { batch = 500, maxBatches = 20 } = {},
): Promise<number> {
  let deleted = 0
  for (let i = 0; i < maxBatches; i++) {
    const keys = await select(batch)
    if (keys.length === 0) break
    deleted += await retryOnConflict(() => remove(keys))
    if (keys.length < batch) break
  }
  return deleted
}
