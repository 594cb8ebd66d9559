import t from 'tap'
import { spawnSync } from 'node:child_process'
import { benchDatabaseName, leftByGoneBench } from '../../bench/processes.js'
import { summarizeRounds } from '../../bench/rounds.js'
import type { Result } from '../../bench/scenarios.js'

/** An A/B in rounds (bench/rounds.ts): each side's median round, the rounds' own ratios, the databases' names. */

const run = (server: string, cpuPerRequestMs: number, extra: Partial<Result> = {}): Result => ({
  server,
  scenario: 'lb-submit',
  rps: 1000 / cpuPerRequestMs,
  p50: 1,
  p99: 2,
  non2xx: 0,
  errors: 0,
  ratio: null,
  cpuPerRequestMs,
  peakRssMb: 80,
  processes: 1,
  statementsPerRequest: cpuPerRequestMs > 1 ? 3 : 2,
  ...extra,
})

t.test("each side's median round in the table; the median of the rounds' ratios, round by round", async (t) => {
  const [a, b] = ['outpost sqlite', 'outpost sqlite games=100']
  // The machine slows down over the run: A's and B's runs drift together, each round's pair stays close.
  const first = [0.5, 0.6, 0.8, 1.0, 1.2].map((ms) => run(a, ms))
  const second = [0.52, 0.6, 0.86, 1.03, 1.2].map((ms) => run(b, ms))
  const { results, ratios } = summarizeRounds(['lb-submit'], [[first, second]])
  t.same(
    results.map((r) => [r.server, r.cpuPerRequestMs]),
    [
      [a, 0.8],
      [b, 0.86],
    ],
    "each side's row is its median run",
  )
  t.equal(ratios.length, 1)
  const [ratio] = ratios
  t.same(
    ratio!.cpu.map((c) => Number(c.toFixed(3))),
    [1.04, 1, 1.075, 1.03, 1],
    'one ratio per round, B over A of that round',
  )
  t.equal(Number(ratio!.median.toFixed(3)), 1.03, 'their median')
  t.match(ratio, { first: a, second: b, statements: [2, 2], unclean: 0 })
})

t.test('an even count of rounds: the two middle ratios averaged; runs with errors counted', async (t) => {
  const first = [1, 1, 1, 1].map((ms) => run('a', ms))
  const second = [1.1, 0.9, 1.2, 1.0].map((ms, i) => run('b', ms, i === 2 ? { non2xx: 4 } : {}))
  const [ratio] = summarizeRounds(['mixed'], [[first, second]]).ratios
  t.equal(Number(ratio!.median.toFixed(3)), 1.05)
  t.equal(ratio!.unclean, 1, 'the run with non-2xx answers is named')
})

t.test("databases: a name per server, and a killed bench's found by its pid", async (t) => {
  const [one, two] = [benchDatabaseName(), benchDatabaseName()]
  t.not(one, two, 'two servers up at once get two databases')
  t.match(one, new RegExp(`^outpost_bench_${process.pid}_\\d+$`))
  t.notOk(leftByGoneBench(one), 'this bench is alive')
  t.notOk(leftByGoneBench(`${one}__moon`), "nor its games' databases")
  // A pid that has surely exited: a child that ran and was reaped.
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString()
  t.ok(leftByGoneBench(`outpost_bench_${gone}_3`), "a gone bench's database")
  t.ok(leftByGoneBench(`outpost_bench_${gone}_3__moon`), "and its games'")
  t.ok(leftByGoneBench(`outpost_bench_${gone}`), 'and one named by an earlier bench (no count)')
  t.notOk(leftByGoneBench('outpost_t_0a1b2c'), "a test's database is not the bench's to drop")
  t.notOk(leftByGoneBench('outpost_bench_x'), 'nor a name without a pid')
})
