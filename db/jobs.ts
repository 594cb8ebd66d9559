import { randomUUID } from 'node:crypto'
import type { Db } from './types.js'
import { affected, insertOrIgnore } from './dialect.js'
import { retryOnConflict } from './transaction.js'

/**
 * Background jobs: maintenance that must not run inside a request (deleting expired rows). A DELETE
 * over a range of rows inside a sign-in took locks that the sign-ins beside it needed, and InnoDB's
 * deadlock answer reached the player as a 500. Each job runs at most once per period across every
 * instance and worker sharing the database: the run is claimed with one conditional UPDATE of the
 * job's row in `job_runs`, which exactly one of them matches.
 */
export interface Job {
  /** The job's row in `job_runs`: unique per job. */
  name: string
  /** At most one run per this many milliseconds, over all instances. */
  everyMs: number
  /** One run; bounded (a job deletes in batches, up to a limit per run). */
  run(db: Db, now: number): Promise<unknown>
}

/** The one log line a failed job writes, so db/ needs no logger type from platform/. */
export interface JobLog {
  error(details: object, message: string): void
}

/** How often a runner looks for a due job, at most: a claim is one UPDATE per job. */
const POLL_MS = 60_000

/**
 * Takes the job's run for the period that begins at `now`, for the runner `by`: true for exactly one
 * of any number of concurrent callers per period. The row is created once, with a claim long past.
 */
export async function claimRun(db: Db, job: Pick<Job, 'name' | 'everyMs'>, now: number, by: string) {
  await retryOnConflict(() =>
    insertOrIgnore(db, db.insertInto('job_runs').values({ name: job.name, claimed_at: 0, claimed_by: null })).execute(),
  )
  const claimed = await retryOnConflict(() =>
    db
      .updateTable('job_runs')
      .set({ claimed_at: now, claimed_by: by })
      .where('name', '=', job.name)
      .where('claimed_at', '<=', now - job.everyMs)
      .executeTakeFirst(),
  )
  return affected(claimed) === 1
}

/**
 * Runs the jobs added to it, each when its period has passed and this runner won the claim. Passes
 * never overlap; a failing job is logged and runs again in a later period; nothing thrown by a job
 * leaves the runner. Time is the injected clock's.
 */
export class JobRunner {
  /** This runner's id in `job_runs.claimed_by`. */
  readonly id = randomUUID()
  private readonly jobs: Job[] = []
  private timer: NodeJS.Timeout | undefined
  private chain: Promise<unknown> = Promise.resolve()
  private stopped = true

  constructor(
    private readonly db: Db,
    private readonly clock: { now(): number },
    private readonly log: JobLog,
    private readonly pollMs = POLL_MS,
  ) {}

  add(job: Job): void {
    if (this.jobs.some((j) => j.name === job.name)) throw new Error(`A job named '${job.name}' is already added`)
    this.jobs.push(job)
  }

  get names(): string[] {
    return this.jobs.map((j) => j.name)
  }

  get running(): boolean {
    return !this.stopped
  }

  /** One pass over the jobs: the names of those this runner claimed and ran to the end. */
  runDue(): Promise<string[]> {
    const next = this.chain.then(() => this.pass())
    this.chain = next.catch(() => undefined)
    return next
  }

  /** Looks for due jobs every poll interval (the first look one interval after the start). */
  start(): void {
    if (!this.stopped) return
    this.stopped = false
    this.schedule()
  }

  /** No pass starts after this; waits for the pass in progress to end. */
  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    await this.chain
  }

  private schedule() {
    const every = Math.min(this.pollMs, ...this.jobs.map((j) => j.everyMs))
    this.timer = setTimeout(async () => {
      await this.runDue()
      if (!this.stopped) this.schedule()
    }, every)
    this.timer.unref()
  }

  private async pass(): Promise<string[]> {
    const ran: string[] = []
    for (const job of this.jobs) {
      const now = this.clock.now()
      try {
        if (!(await claimRun(this.db, job, now, this.id))) continue
        await job.run(this.db, now)
        ran.push(job.name)
      } catch (error) {
        this.log.error({ err: error, job: job.name }, 'background job failed; it runs again in a later period')
      }
    }
    return ran
  }
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
