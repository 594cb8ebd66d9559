import { join } from 'node:path'
import { runScale, type ScaleRun } from './scale.js'
import { API_KEY, type Result } from './scenarios.js'
import { benchOutpost, benchPhp, PHP_LABEL, startOutpost, tail, type BenchContext, type Db } from './servers.js'
import { meta, printResults, writeJson } from './report.js'
import { judgePerCore, printTargets, type ScaleReadings } from './targets.js'

/**
 * `--targets`: everything the per-core targets need, in one run — mixed and lb-submit on Outpost
 * (SQLite, then MariaDB, one worker each: per core) and on the PHP peer, then the filled board on
 * both databases — judged with ✓/✗/— and written to bench/results/targets-*.json.
 */

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

export async function runTargets(ctx: BenchContext, options: { workers: string | undefined; scaleEntries: number }) {
  const started = Date.now()
  // Per core means one worker: more would only share the one core. --workers overrides, and says so in the labels.
  const workers = options.workers ?? '1'
  const labels = { sqlite: `outpost sqlite w=${workers}`, mysql: `outpost mysql w=${workers}`, php: PHP_LABEL }
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
  const names = ['mixed', 'lb-submit']
  for (const db of ['sqlite', 'mysql'] as const)
    results.push(...((await phase(labels[db], () => benchOutpost(ctx, db, workers, names, null))) ?? []))
  results.push(...((await phase(labels.php, () => benchPhp(ctx, names, null))) ?? []))
  const scale: { sqlite?: ScaleReadings; mysql?: ScaleReadings } = {}
  const scalePeakRssMb: Array<{ server: string; mb: number }> = []
  if (options.scaleEntries > 0)
    for (const db of ['sqlite', 'mysql'] as const) {
      const what = `scale ${db} ${options.scaleEntries}`
      // On this machine a million entries took about 20 s to fill on SQLite, minutes on MariaDB.
      process.stdout.write(`\n${what}: the board filled (can take minutes), then single requests timed…\n`)
      const run: ScaleRun | undefined = await phase(what, () => scaleOn(ctx, db, workers, options.scaleEntries))
      if (!run) continue
      scale[db] = run.results
      scalePeakRssMb.push({ server: `outpost ${db} w=${workers} scale`, mb: run.peakRssMb })
    }
  else process.stdout.write('\n--scale-entries 0: the filled-board targets are not measured\n')

  const targets = judgePerCore({
    results,
    labels,
    scale,
    scaleEntries: options.scaleEntries,
    scalePeakRssMb,
    connections: ctx.run.connections,
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
  writeJson(ctx.root, 'targets', { meta: info, seconds, results, scale, targets })
}
