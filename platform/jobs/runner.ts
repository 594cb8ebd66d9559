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

/**
 * A game whose jobs run: its id (in the log), its database, which holds its own `job_runs`, and when
 * this instance last answered one of its requests (the clock's ms, 0 for none).
 */
export interface JobGame {
  readonly id: string
  readonly db: Db
  readonly lastRequestAt: number
}

/** How often a runner looks for a due job, at most: a claim is one UPDATE per job and game. */
const POLL_MS = 60_000

/** The games whose passes run at once: a slow game holds one of them, never the others' turn. */
const GAMES_AT_ONCE = 4

/**
 * A game this instance has answered no request of for REST_AFTER_MS is at rest: its jobs are looked
 * at once every REST_EVERY_MS, not at every poll. The wait covers the last activity marks' flush and
 * a rollup after it; the game's next request ends the rest at the next poll.
 */
export const REST_AFTER_MS = 60_000
/** How often the jobs of a game at rest are looked at (each still no more often than its period). */
export const REST_EVERY_MS = 10 * 60_000

/** The game whose job names `runDue` answers bare (the others' are `game/name`). */
const DEFAULT_GAME = 'default'

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

/** Makes the job's row in `job_runs` if it is missing, with a lease long lapsed. */
async function ensureRunRow(db: Db, job: Pick<Job, 'name'>): Promise<void> {
  await retryOnConflict(() =>
    insertOrIgnore(db, db.insertInto('job_runs').values({ name: job.name, claimed_at: 0, claimed_by: null })).execute(),
  )
}

/** Takes the period's lease on the job's row, which must exist: true for the one caller that won it. */
async function takeRun(db: Db, job: Pick<Job, 'name' | 'everyMs'>, now: number, by: string): Promise<boolean> {
  const leases = runLease(job)
  return (await leases.take(db, job.name, now, leases.lapsed(now), { token: by })) !== null
}

/**
 * Takes the job's run for the period that begins at `now`, for the runner `by`: true for exactly one
 * of any number of concurrent callers per period. The row is created once, with a lease long lapsed.
 */
export async function claimRun(db: Db, job: Pick<Job, 'name' | 'everyMs'>, now: number, by: string) {
  await ensureRunRow(db, job)
  return takeRun(db, job, now, by)
}

/** What a runner remembers of one game's database: the job rows it made, and when each job it ran is due again. */
interface GameState {
  rows: Set<string>
  dueAt: Map<string, number>
  /** The game's pass in progress (passes of one game never overlap). */
  chain: Promise<unknown>
  busy: boolean
  /** When its last timed pass began (the clock's ms), for the rest of a game nobody plays. */
  lastLookAt: number
}

/**
 * Runs the jobs added to it for every game the `games` callback lists at each pass (so games added
 * or removed while it runs are followed), each in the game's own database: the run's lease is taken
 * in that database's `job_runs`, the job runs with that database. A game's pass never waits for
 * another's: at most GAMES_AT_ONCE run at once, and a game whose pass is still running when the next
 * look comes is passed over until it ends. A failing job is logged with its game and runs again in a
 * later period; nothing thrown by a job leaves the runner. Time is the injected clock's.
 *
 * Cost: a job this runner ran is not looked at again before its period has passed (it knows its
 * lease holds until then), and its row is made once per database handle; a job another instance
 * holds costs one UPDATE per look. A game at rest (no request answered here for REST_AFTER_MS) is
 * looked at once every REST_EVERY_MS, so 100 games of which one is played cost about what one does.
 * `runDue` looks at every game regardless.
 */
export class JobRunner {
  /** This runner's id in `job_runs.claimed_by`. */
  readonly id = randomUUID()
  private readonly jobs: Job[] = []
  /** By database handle: a game erased and made again under its id is a new handle, known afresh. */
  private readonly states = new WeakMap<Db, GameState>()
  private readonly passes = new Set<Promise<unknown>>()
  private readonly waiting: Array<() => void> = []
  private active = 0
  private timer: NodeJS.Timeout | undefined
  private stopped = true

  constructor(
    private readonly games: () => readonly JobGame[],
    private readonly clock: { now(): number },
    private readonly log: JobLog,
    private readonly pollMs = POLL_MS,
  ) {}

  /** Adds a job, run for every game (its name unique). */
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

  /**
   * One pass over every game (each after its pass in progress, if any), awaited: the jobs this runner
   * claimed and ran to the end, named `name` for the default game and `game/name` for another.
   */
  async runDue(): Promise<string[]> {
    const passes = this.games().map((game) => this.passOf(game, true))
    const ran = await Promise.all(passes)
    return ran.flat()
  }

  /** Looks for due jobs every poll interval (the first look one interval after the start). */
  start(): void {
    if (!this.stopped) return
    this.stopped = false
    this.schedule()
  }

  /** No pass starts after this; waits for the passes in progress to end. */
  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    while (this.passes.size > 0) await Promise.all([...this.passes])
  }

  private schedule() {
    const every = Math.min(this.pollMs, ...this.jobs.map((j) => j.everyMs))
    this.timer = setTimeout(() => {
      // Games whose pass is still running are passed over: the look does not wait for them; so are
      // games at rest until their next look.
      const now = this.clock.now()
      for (const game of this.games()) {
        const state = this.stateOf(game.db)
        if (now - game.lastRequestAt >= REST_AFTER_MS && now - state.lastLookAt < REST_EVERY_MS) continue
        state.lastLookAt = now
        void this.passOf(game, false).catch(() => {})
      }
      if (!this.stopped) this.schedule()
    }, every)
    this.timer.unref()
  }

  private stateOf(db: Db): GameState {
    let state = this.states.get(db)
    if (!state)
      this.states.set(
        db,
        (state = { rows: new Set(), dueAt: new Map(), chain: Promise.resolve(), busy: false, lastLookAt: -Infinity }),
      )
    return state
  }

  /** The game's next pass: queued after the one in progress (`queue`), else none while one runs. */
  private passOf(game: JobGame, queue: boolean): Promise<string[]> {
    const state = this.stateOf(game.db)
    if (state.busy && !queue) return Promise.resolve([])
    state.busy = true
    const next = state.chain.then(() => this.inTurn(() => this.pass(game, state)))
    const settled = next
      .catch(() => [])
      .finally(() => {
        this.passes.delete(settled)
        if (state.chain === settled) state.busy = false
      })
    state.chain = settled
    this.passes.add(settled)
    return next
  }

  /** Runs `work` when fewer than GAMES_AT_ONCE games' passes run, in the order asked. */
  private async inTurn<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= GAMES_AT_ONCE) await new Promise<void>((resolve) => this.waiting.push(resolve))
    else this.active++
    try {
      return await work()
    } finally {
      const next = this.waiting.shift()
      if (next) next()
      else this.active--
    }
  }

  private async pass(game: JobGame, state: GameState): Promise<string[]> {
    const ran: string[] = []
    for (const job of this.jobs) {
      if (job.serverWide && game.id !== DEFAULT_GAME) continue
      const now = this.clock.now()
      if (now < (state.dueAt.get(job.name) ?? 0)) continue
      try {
        if (!state.rows.has(job.name)) {
          await ensureRunRow(game.db, job)
          state.rows.add(job.name)
        }
        if (!(await takeRun(game.db, job, now, this.id))) continue
        // This runner holds the period: no other look at the job before it has passed.
        state.dueAt.set(job.name, now + job.everyMs)
        await job.run(game.db, now)
        ran.push(game.id === DEFAULT_GAME ? job.name : `${game.id}/${job.name}`)
      } catch (error) {
        this.log.error(
          { err: error, job: job.name, game: game.id },
          'background job failed; it runs again in a later period',
        )
      }
    }
    return ran
  }
}
