import { join } from 'node:path'
import { runOpenLoop } from './open-loop.js'
import { runScale, type ScaleRun } from './scale.js'
import { API_KEY, scenarios, type Result } from './scenarios.js'
import {
  benchOutpost,
  benchPhp,
  measureCeiling,
  PHP_MYSQL_LABEL,
  startOutpost,
  tail,
  type AfterRuns,
  type BenchContext,
  type Db,
} from './servers.js'
import { meta, printResults, writeJson } from './report.js'
import { ENGINES, judgePerCore, printTargets, type Engine, type OpenLoopReading, type ScaleReading } from './targets.js'

/**
 * `--targets`: everything the per-core targets need, in one run — the bare Fastify route (the
 * ceiling); mixed and lb-submit on Outpost on SQLite, MariaDB and PostgreSQL (one worker each: per
 * core), each followed on the same server by mixed in an open loop at half the rate just measured;
 * mixed and lb-submit on the PHP peer on MariaDB; then the filled board on the three databases —
 * judged with ✓/✗/— and written to bench/results/targets-*.json.
 */

/** The open loop's fraction of the closed-loop maximum. */
export const OPEN_LOOP_FRACTION = 0.5
/** Outstanding requests beyond which a due request is dropped (counted, infinitely slow). */
const OPEN_LOOP_MAX_IN_FLIGHT = 256
const OPEN_LOOP_TIMEOUT_MS = 10_000
/** Seconds at the rate before the measured schedule: the driver's connections opened, its code warm. */
const OPEN_LOOP_WARMUP_S = 1

/** `--scale N` on one database: the board filled with N entries, single requests timed. */
export async function scaleOn(ctx: BenchContext, db: Db, workers: string | undefined, entries: number) {
  const outpost = await startOutpost(ctx, db, workers)
  try {
    return await runScale({
      url: outpost.server.url,
      apiKey: API_KEY,
      dbEnv: outpost.dbEnv,
      entries,
      resultsDir: join(ctx.root, 'bench/results'),
      peakRss: outpost.server.peakRss,
      pinning: ctx.pinning.note,
    })
  } catch (error) {
    ;(error as Error).message += `\nserver log tail (${outpost.label}):\n${tail(outpost.log)()}`
    throw error
  } finally {
    await outpost.stop()
  }
}

/** After a stack's closed-loop runs: mixed on the same server in an open loop at half its max rps. */
function openLoopAfter(ctx: BenchContext, into: (reading: OpenLoopReading) => void): AfterRuns {
  return async (server, label, seeded, results) => {
    const mixed = results.find((x) => x.scenario === 'mixed')
    if (!mixed || !(mixed.rps > 0)) throw new Error(`${label}: no closed-loop mixed rps to take half of`)
    const rate = OPEN_LOOP_FRACTION * mixed.rps
    // A fresh set of the scenarios: its check after the run covers the open loop's writes alone.
    const scenario = scenarios(seeded, 'outpost').find((s) => s.name === 'mixed')!
    const run = await runOpenLoop({
      url: server.url,
      rate,
      duration: ctx.run.duration,
      warmup: OPEN_LOOP_WARMUP_S,
      connections: ctx.run.connections,
      maxInFlight: OPEN_LOOP_MAX_IN_FLIGHT,
      timeoutMs: OPEN_LOOP_TIMEOUT_MS,
      scenario,
    })
    const check = await scenario.verify!(server)
    process.stdout.write(
      `${label} mixed open loop at ${rate.toFixed(0)} rps: p50 ${run.p50.toFixed(2)} ms, p99 ${run.p99.toFixed(2)} ms ` +
        `from the scheduled time; ${run.scheduled} scheduled, ${run.completed} answered, ${run.dropped} dropped ` +
        `(over ${OPEN_LOOP_MAX_IN_FLIGHT} in flight), ${run.late} sent over 1 ms late, ${run.errors} failed, ` +
        `${run.non2xx} non-2xx (after ${OPEN_LOOP_WARMUP_S} s of warm-up at the rate); check: ${check.text}\n`,
    )
    into({
      rate,
      maxRps: mixed.rps,
      scheduled: run.scheduled,
      dropped: run.dropped,
      late: run.late,
      non2xx: run.non2xx,
      errors: run.errors,
      p99: run.p99,
      lost: check.lost,
    })
  }
}

export async function runTargets(ctx: BenchContext, options: { workers: string | undefined; scaleEntries: number }) {
  const started = Date.now()
  // Per core means one worker: more would only share the one core. --workers overrides, and says so in the labels.
  const workers = options.workers ?? '1'
  const labels = {
    sqlite: `outpost sqlite w=${workers}`,
    mysql: `outpost mysql w=${workers}`,
    postgres: `outpost postgres w=${workers}`,
    php: PHP_MYSQL_LABEL,
    ceiling: 'ceiling',
  }
  const results: Result[] = []
  const seconds: Record<string, number> = {}
  // A phase that fails (MariaDB down, nginx missing) leaves its targets unmeasured; the others still run.
  const phase = async <T>(what: string, run: () => Promise<T>): Promise<T | undefined> => {
    const start = Date.now()
    try {
      return await run()
    } catch (error) {
      process.stderr.write(`!!! ${what} failed: ${(error as Error).stack}\n`)
      return undefined
    } finally {
      seconds[what] = Math.round((Date.now() - start) / 1000)
    }
  }
  const ceiling = await phase('ceiling', () => measureCeiling(ctx, labels.ceiling))
  if (ceiling) results.push(ceiling)
  const names = ['mixed', 'lb-submit']
  const openLoop: Partial<Record<Engine, OpenLoopReading>> = {}
  for (const db of ENGINES) {
    const after = openLoopAfter(ctx, (reading) => (openLoop[db] = reading))
    const runs = await phase(labels[db], () => benchOutpost(ctx, db, workers, names, ceiling?.rps ?? null, {}, after))
    results.push(...(runs ?? []))
  }
  results.push(...((await phase(labels.php, () => benchPhp(ctx, names, ceiling?.rps ?? null, 'mysql'))) ?? []))
  const scale: Partial<Record<Engine, ScaleReading>> = {}
  const scalePeakRssMb: Array<{ server: string; mb: number }> = []
  if (options.scaleEntries > 0)
    for (const db of ENGINES) {
      const what = `scale ${db} ${options.scaleEntries}`
      // On this machine a million entries took about 20 s to fill on SQLite, minutes on MariaDB.
      process.stdout.write(`\n${what}: the board filled (can take minutes), then single requests timed…\n`)
      const run: ScaleRun | undefined = await phase(what, () => scaleOn(ctx, db, workers, options.scaleEntries))
      if (!run) continue
      scale[db] = { readings: run.results, lost: run.lost }
      scalePeakRssMb.push({ server: `outpost ${db} w=${workers} scale`, mb: run.peakRssMb })
    }
  else process.stdout.write('\n--scale-entries 0: the filled-board targets are not measured\n')

  const targets = judgePerCore({
    results,
    labels,
    openLoop,
    scale,
    scaleEntries: options.scaleEntries,
    scalePeakRssMb,
  })
  const info = {
    ...meta(ctx),
    workers,
    scaleEntries: options.scaleEntries,
    seconds: Math.round((Date.now() - started) / 1000),
  }
  printResults(results, info)
  printTargets(targets)
  process.stdout.write(
    `took ${info.seconds} s: ${Object.entries(seconds)
      .map(([what, s]) => `${what} ${s} s`)
      .join(', ')}\n`,
  )
  writeJson(ctx.root, 'targets', { meta: info, seconds, results, openLoop, scale, targets })
}
