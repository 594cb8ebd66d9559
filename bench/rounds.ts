import { runScenario, scenarios, type Result, type Scenario } from './scenarios.js'
import { seedOutpost, startOutpost, tail, type BenchContext, type Db, type Outpost } from './servers.js'

/**
 * An A/B in rounds (`--rounds R`): both servers up at once on the server core, each seeded, then left
 * alone for the settle time; then each scenario runs on A and on B back to back, R times, the order
 * swapped every round (AB, BA, AB…). A machine that speeds up or slows down during the run (this one
 * does, by a factor of several from one hour to the next) then weighs on both sides alike, where one
 * pass of A followed by one of B measures the drift as much as the change. Each side's row in the table
 * is its median round; the figure to read is the median of the rounds' own ratios, printed with the
 * lowest and highest.
 */

/** One side of an A/B: its context (build, games, settle time) and the settings it runs with. */
export interface Side {
  ctx: BenchContext
  env: Record<string, string>
}

/** One scenario over the rounds: B's CPU per request over A's in each round, and the median. */
export interface RoundRatios {
  scenario: string
  first: string
  second: string
  /** In round order. */
  cpu: number[]
  median: number
  /** Statements per request of each side, its median round's (null where the server does not count them). */
  statements: [number | null, number | null]
  /** Runs (of both sides) with errors or non-2xx answers: their CPU per request measures those too. */
  unclean: number
}

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y)
  const middle = sorted.length / 2
  return Number.isInteger(middle) ? (sorted[middle - 1]! + sorted[middle]!) / 2 : sorted[Math.floor(middle)]!
}

/** The run whose CPU per request is the median of the side's rounds (the lower middle for an even count). */
function medianRun(runs: Result[]): Result {
  const sorted = [...runs].sort((x, y) => x.cpuPerRequestMs - y.cpuPerRequestMs)
  return sorted[Math.floor((sorted.length - 1) / 2)]!
}

/**
 * Each side's median round (its row in the table) and, per scenario, the rounds' ratios. `runs[i]` holds
 * scenario `names[i]`'s runs on A and on B, in round order.
 */
export function summarizeRounds(
  names: string[],
  runs: Array<[Result[], Result[]]>,
): { results: Result[]; ratios: RoundRatios[] } {
  const results: Result[] = []
  const ratios: RoundRatios[] = []
  for (const [i, name] of names.entries()) {
    const [first, second] = runs[i]!
    const [x, y] = [medianRun(first), medianRun(second)]
    results.push(x, y)
    const cpu = first.map((run, round) => second[round]!.cpuPerRequestMs / run.cpuPerRequestMs)
    ratios.push({
      scenario: name,
      first: x.server,
      second: y.server,
      cpu,
      median: median(cpu),
      statements: [x.statementsPerRequest ?? null, y.statementsPerRequest ?? null],
      unclean: [...first, ...second].filter((run) => run.errors || run.non2xx).length,
    })
  }
  return { results, ratios }
}

export async function benchRounds(
  a: Side,
  b: Side,
  db: Db,
  workers: string | undefined,
  names: string[],
  ceilingRps: number | null,
  rounds: number,
): Promise<{ results: Result[]; ratios: RoundRatios[] }> {
  const started: Outpost[] = []
  try {
    const sides: Array<{ outpost: Outpost; all: Scenario[] }> = []
    for (const side of [a, b]) {
      const outpost = await startOutpost(side.ctx, db, workers, side.env)
      started.push(outpost)
      sides.push({ outpost, all: scenarios(await seedOutpost(side.ctx, outpost), 'outpost') })
    }
    const settleMs = Math.max(a.ctx.settleMs ?? 0, b.ctx.settleMs ?? 0)
    if (settleMs) {
      process.stdout.write(`both servers: ${settleMs / 1000} s without requests, so the unplayed games rest…\n`)
      await new Promise((resolve) => setTimeout(resolve, settleMs))
    }
    const runs = names.map((): [Result[], Result[]] => [[], []])
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? [0, 1] : [1, 0]
      for (const [i, name] of names.entries())
        for (const s of order) {
          const { outpost, all } = sides[s]!
          const scenario = all.find((candidate) => candidate.name === name)
          if (!scenario) throw new Error(`unknown scenario ${name}`)
          const run = await runScenario(
            outpost.server,
            outpost.label,
            scenario,
            a.ctx.run,
            ceilingRps,
            tail(outpost.log),
          )
          runs[i]![s]!.push(run)
        }
      process.stdout.write(`round ${round + 1} of ${rounds} done (${order[0] === 0 ? 'A then B' : 'B then A'})\n`)
    }
    return summarizeRounds(names, runs)
  } finally {
    for (const outpost of started.reverse()) await outpost.stop()
  }
}

export function printRounds(ratios: RoundRatios[]) {
  if (!ratios.length) return
  process.stdout.write('\nrounds (CPU per request of the second over the first, both back to back in each round):\n')
  for (const r of ratios) {
    const range = `${Math.min(...r.cpu).toFixed(2)}–${Math.max(...r.cpu).toFixed(2)}`
    const statements = r.statements.map((s) => (s === null ? '—' : s.toFixed(2))).join(' vs ')
    process.stdout.write(
      `  ${r.scenario}: ${r.second} / ${r.first}: median ${r.median.toFixed(3)}× (${range} over ${r.cpu.length} rounds: ` +
        `${r.cpu.map((c) => c.toFixed(2)).join(', ')}); statements/request ${statements}` +
        `${r.unclean ? `; ${r.unclean} runs with errors or non-2xx` : ''}\n`,
    )
  }
}
