import t from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { isOtherBackend, sampledCpu } from '../../bench/postgres-stack.js'
import { comparisons, engineCosts } from '../../bench/report.js'
import type { Result } from '../../bench/scenarios.js'

/** The bench's PostgreSQL accounting: which of the postmaster's children count, and CPU kept past a child's exit. */

t.test("a backend of another database is left out; the run's backends and auxiliary processes count", async (t) => {
  const db = 'outpost_bench_42'
  t.notOk(isOtherBackend(`postgres: 15/main: postgres ${db} 127.0.0.1(33686) idle`, db))
  t.notOk(isOtherBackend(`postgres: 15/main: postgres ${db} [local] SELECT`, db))
  t.ok(isOtherBackend('postgres: 15/main: postgres outpost_t_0704 127.0.0.1(33686) idle', db))
  t.ok(isOtherBackend('postgres: 15/main: root outpost_bench_421 [local] idle', db), 'a name that only starts alike')
  for (const aux of ['checkpointer', 'background writer', 'walwriter', 'autovacuum launcher'])
    t.notOk(isOtherBackend(`postgres: 15/main: ${aux} `, db), aux)
})

/** A node process that spins for `ms` of CPU, then waits for its stdin to close (or exits at once with `exit`). */
function spinner(ms: number, exit: boolean): ChildProcess {
  const script = `const end = process.cpuUsage().user / 1000 + ${ms}; while (process.cpuUsage().user / 1000 < end) {}
    process.stdout.write('spun\\n'); ${exit ? '' : "process.stdin.resume(); process.stdin.on('end', () => process.exit(0))"}`
  return spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] })
}

t.test('sampled CPU: what ran before counts from the first sample, what exits keeps its last sample', async (t) => {
  const before = spinner(300, false)
  await once(before.stdout!, 'data')
  const pids = [before.pid!]
  const cpu = sampledCpu(() => pids)
  t.teardown(cpu.stop)
  t.ok(cpu.cpuMs() < 100, `the 300 ms spun before the first sample do not count (${cpu.cpuMs()} ms)`)

  const during = spinner(400, true)
  pids.push(during.pid!)
  // Sampled every 100 ms while it spins; its exit then removes it from /proc.
  await once(during, 'exit')
  const counted = cpu.cpuMs()
  t.ok(counted >= 250, `a process forked meanwhile counts from zero, and after its exit (${counted} ms)`)
  before.stdin!.end()
  await once(before, 'exit')
})

const result = (server: string, scenario: string, cpuMs: number, extra: Partial<Result> = {}): Result => ({
  server,
  scenario,
  rps: 100,
  p50: 1,
  p99: 2,
  non2xx: 0,
  errors: 0,
  ratio: null,
  cpuPerRequestMs: cpuMs,
  peakRssMb: 100,
  processes: 1,
  ...extra,
})

t.test("each engine's cost, and PostgreSQL's beside MariaDB's and SQLite's", async (t) => {
  const results = [
    result('outpost sqlite w=1', 'mixed', 0.5),
    result('outpost mysql w=1', 'mixed', 1, { statementsPerRequest: 1.4, databaseCpuPerRequestMs: 0.4 }),
    result('outpost postgres w=1', 'mixed', 1.5, { statementsPerRequest: 1.3, databaseCpuPerRequestMs: 0.7 }),
    result('outpost postgres w=1', 'lb-top', 1),
  ]
  const costs = engineCosts(results)
  t.same(
    costs.map((c) => [c.server, c.scenario, c.cpuPerRequestUs, c.databaseCpuPerRequestUs, c.statementsPerRequest]),
    [
      ['outpost sqlite w=1', 'mixed', 500, null, null],
      ['outpost mysql w=1', 'mixed', 1000, 400, 1.4],
      ['outpost postgres w=1', 'mixed', 1500, 700, 1.3],
    ],
    'mixed and lb-submit only',
  )
  const pairs = comparisons(results).filter((c) => c.scenario === 'mixed')
  const pg = pairs.find((c) => c.first === 'outpost mysql w=1' && c.second === 'outpost postgres w=1')
  t.equal(pg?.cpu, 1.5, "PostgreSQL's CPU per request over MariaDB's")
  t.ok(pairs.some((c) => c.first === 'outpost sqlite w=1' && c.second === 'outpost postgres w=1'))
})
