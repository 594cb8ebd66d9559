import { randomUUID } from 'node:crypto'
import type { Db } from '../../db/types.js'
import { insertOrIgnore } from '../../db/dialect.js'
import type { Job } from '../../db/jobs.js'
import { retryOnConflict } from '../../db/transaction.js'
import { Leases } from './outbox.js'

/** What the runner needs of a logger, to report a failed job (the app's logger, or a test's). */
export interface JobLog {
  error(details: object, message: string): void
}

/** How often a runner looks for a due job, at most: a claim is one UPDATE per job. */
const POLL_MS = 60_000

/** A job's run: a lease of one period on its row in `job_runs`, taken when the last one lapsed. */
function runLease(job: Pick<Job, 'everyMs'>) {
  return new Leases({
    table: 'job_runs',
    key: 'name',
    token: 'claimed_by',
    lease: { since: 'claimed_at' },
    leaseMs: job.everyMs,
  })
}

/**
 * Takes the job's run for the period that begins at `now`, for the runner `by`: true for exactly one
 * of any number of concurrent callers per period. The row is created once, with a lease long lapsed.
 */
export async function claimRun(db: Db, job: Pick<Job, 'name' | 'everyMs'>, now: number, by: string) {
  await retryOnConflict(() =>
    insertOrIgnore(db, db.insertInto('job_runs').values({ name: job.name, claimed_at: 0, claimed_by: null })).execute(),
  )
  const leases = runLease(job)
  return (await leases.take(db, job.name, now, leases.lapsed(now), { token: by })) !== null
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
