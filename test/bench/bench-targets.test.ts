import t from 'tap'
import { createServer } from 'node:http'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { dueCount, quantileWithMissing, runOpenLoop, scheduledAt, scheduleSize } from '../../bench/open-loop.js'
import {
  judgePerCore,
  verdictMark,
  type Measured,
  type OpenLoopReading,
  type PerCoreInputs,
  type Target,
} from '../../bench/targets.js'

/** The `--targets` verdicts (bench/targets.ts) and the open-loop driver's schedule and latencies (bench/open-loop.ts). */

const run = (server: string, scenario: string, cpuUs: number, rest: Partial<Measured> = {}): Measured => ({
  server,
  scenario,
  rps: 1000,
  p99: 5,
  non2xx: 0,
  errors: 0,
  cpuPerRequestMs: cpuUs / 1000,
  peakRssMb: 100,
  statementsPerRequest: null,
  lost: 0,
  ...rest,
})
const labels = {
  php: 'php mysql w=8',
  sqlite: 'outpost sqlite w=1',
  mysql: 'outpost mysql w=1',
  postgres: 'outpost postgres w=1',
  ceiling: 'ceiling',
}
const open = (p99: number, rest: Partial<OpenLoopReading> = {}): OpenLoopReading => ({
  rate: 500,
  maxRps: 1000,
  scheduled: 4000,
  dropped: 0,
  late: 3,
  non2xx: 0,
  errors: 0,
  p99,
  lost: 0,
  ...rest,
})
const inputs = (results: Measured[], extra: Partial<PerCoreInputs> = {}): PerCoreInputs => ({
  results,
  labels,
  openLoop: {},
  scale: {},
  scaleEntries: 1_000_000,
  scalePeakRssMb: [],
  ...extra,
})
const verdict = (targets: Target[], start: string) => {
  const found = targets.filter((x) => x.target.startsWith(start))
  if (found.length !== 1) throw new Error(`${found.length} targets start with ${start}`)
  return found[0]!
}
const mark = (targets: Target[], start: string) => verdictMark(verdict(targets, start))

/** Every run of a --targets run, at the given CPU per request (µs) and rps. */
const full = () => [
  run('ceiling', 'ceiling', 20, { rps: 20_000 }),
  run(labels.sqlite, 'mixed', 50, { rps: 5000, statementsPerRequest: 1.4 }),
  run(labels.sqlite, 'lb-submit', 81, { statementsPerRequest: 3.3 }),
  run(labels.mysql, 'mixed', 125, { rps: 4000, statementsPerRequest: 1.5 }),
  run(labels.mysql, 'lb-submit', 250, { statementsPerRequest: 4.74, peakRssMb: 260 }),
  run(labels.postgres, 'mixed', 150, { rps: 3000 }),
  run(labels.postgres, 'lb-submit', 301),
  run(labels.php, 'mixed', 500, { rps: 1000 }),
  run(labels.php, 'lb-submit', 740, { lost: 2 }),
]

t.test('every target judged on one full run, at and just past each bound', async (t) => {
  const targets = judgePerCore(
    inputs(full(), {
      openLoop: { sqlite: open(10), mysql: open(10.01), postgres: open(3) },
      scale: {
        sqlite: { readings: { 'rank top': { median: 2, p99: 3 }, 'health (floor)': { median: 9, p99: 9 } }, lost: 0 },
        mysql: { readings: { 'around middle': { median: 5.1, p99: 9 } }, lost: 0 },
        postgres: { readings: { 'rank bottom': { median: 4.9, p99: 9 } }, lost: 0 },
      },
      scalePeakRssMb: [{ server: 'outpost sqlite w=1 scale', mb: 120 }],
    }),
  )
  const mixed = verdict(targets, 'PHP / Outpost, both on MariaDB, CPU per request: mixed')
  t.same([mixed.measured, verdictMark(mixed)], ['4.0× (rps 4.0×)', '✓'], '500 / 125 µs: exactly 4× meets it')
  t.equal(mark(targets, 'PHP / Outpost, both on MariaDB, CPU per request: lb-submit'), '✗', '740 / 250: 2.96×')
  t.equal(mark(targets, 'MariaDB stack / SQLite, CPU per request: mixed'), '✓', '125 / 50: 2.5×')
  t.equal(mark(targets, 'MariaDB stack / SQLite, CPU per request: lb-submit'), '✗', '250 / 81: 3.09×')
  t.equal(mark(targets, 'PostgreSQL stack / MariaDB, CPU per request: mixed'), '✓', '150 / 125: 1.2×')
  t.equal(mark(targets, 'PostgreSQL stack / MariaDB, CPU per request: lb-submit'), '✗', '301 / 250: 1.204×')
  t.equal(mark(targets, 'SQLite: mixed CPU'), '✓', '50 µs is within ≤ 50')
  t.equal(mark(targets, 'SQLite: lb-submit CPU'), '✗', '81 µs is over 80')
  const ratio = verdict(targets, "SQLite: mixed rps / bare Fastify route's")
  t.same([ratio.measured, verdictMark(ratio)], ['25 %', '✓'], '5000 / 20000 rps')
  for (const engine of ['MariaDB', 'PostgreSQL'])
    t.equal(mark(targets, `${engine}: mixed rps / bare Fastify`), 'info', `${engine}'s ratio is printed, not judged`)
  t.equal(verdict(targets, "MariaDB: mixed rps / bare Fastify route's").measured, '20 %')
  t.equal(mark(targets, 'SQLite: mixed p99, open loop'), '✓', '10 ms is within ≤ 10')
  t.equal(mark(targets, 'MariaDB: mixed p99, open loop'), '✗')
  t.match(verdict(targets, 'PostgreSQL: mixed p99, open loop').measured, /^3 ms at 500 rps \(max 1000; 4000 sent/)
  t.equal(mark(targets, '1M-entry board, SQLite'), '✓', 'the worst read, the floor not among them')
  t.equal(mark(targets, '1M-entry board, MariaDB'), '✗')
  t.equal(mark(targets, '1M-entry board, PostgreSQL'), '✓', 'within 5 ms')
  const statements = verdict(targets, 'MariaDB: statements per request')
  t.same([statements.measured, verdictMark(statements)], ['lb-submit 4.74, mixed 1.50', 'info'])
  t.equal(verdict(targets, 'PostgreSQL: statements per request').measured, 'not measured', 'none counted')
  t.equal(mark(targets, 'PostgreSQL: statements per request'), '—')
  const rss = verdict(targets, 'peak RSS per Outpost process')
  t.same([verdictMark(rss), rss.measured], ['✗', '260 MB (outpost mysql w=1 lb-submit)'])
  t.equal(mark(targets, 'every run: non-2xx'), '✓')
  t.equal(mark(targets, 'every Outpost run: lost'), '✓', "the PHP server's own lost best scores are not Outpost's")
  t.notOk(
    targets.some((x) => x.info && x.met !== null),
    'an info row is never counted as met or not',
  )
})

t.test('a missing run is —, never ✓', async (t) => {
  const none = judgePerCore(inputs([]))
  t.same(
    none.map((x) => verdictMark(x)),
    none.map(() => '—'),
    'nothing measured, nothing met',
  )
  // MariaDB failed to start: everything that reads it is —, the rest still judged.
  const noMysql = judgePerCore(
    inputs(
      full().filter((x) => !x.server.includes('mysql')),
      { openLoop: { sqlite: open(4) } },
    ),
  )
  t.equal(mark(noMysql, 'PHP / Outpost, both on MariaDB, CPU per request: mixed'), '—')
  t.equal(mark(noMysql, 'MariaDB stack / SQLite, CPU per request: mixed'), '—')
  t.equal(mark(noMysql, 'PostgreSQL stack / MariaDB, CPU per request: lb-submit'), '—')
  t.equal(mark(noMysql, 'MariaDB: mixed p99, open loop'), '—')
  t.equal(mark(noMysql, 'PostgreSQL: mixed p99, open loop'), '—')
  t.equal(mark(noMysql, 'SQLite: mixed p99, open loop'), '✓')
  t.equal(mark(noMysql, 'SQLite: mixed CPU'), '✓')
  t.equal(mark(noMysql, "MariaDB: mixed rps / bare Fastify route's"), '—')
  t.equal(mark(noMysql, '1M-entry board, PostgreSQL'), '—', 'no scale run')
  const noCeiling = judgePerCore(inputs(full().filter((x) => x.scenario !== 'ceiling')))
  t.equal(mark(noCeiling, "SQLite: mixed rps / bare Fastify route's"), '—')
})

t.test('drops, failures and lost writes in any run fail their targets', async (t) => {
  const results = full()
  results[1] = { ...results[1]!, lost: 1 }
  results[7] = { ...results[7]!, non2xx: 3 }
  const targets = judgePerCore(
    inputs(results, {
      openLoop: {
        sqlite: open(Number.POSITIVE_INFINITY, { dropped: 80 }),
        postgres: open(2, { errors: 1, lost: 2 }),
      },
      scale: { mysql: { readings: { 'rank top': { median: 1, p99: 2 } }, lost: 1 } },
    }),
  )
  const sqlite = verdict(targets, 'SQLite: mixed p99, open loop')
  t.equal(verdictMark(sqlite), '✗', 'over 1 % dropped: an infinite p99')
  t.match(sqlite.measured, /^∞ at 500 rps .* 80 dropped/)
  const failed = verdict(targets, 'every run: non-2xx')
  t.same(
    [verdictMark(failed), failed.measured],
    ['✗', 'php mysql w=8 mixed: 3/0; outpost postgres w=1 mixed open loop: 0/1'],
  )
  const lost = verdict(targets, 'every Outpost run: lost')
  t.same(
    [verdictMark(lost), lost.measured],
    [
      '✗',
      'outpost sqlite w=1 mixed: 1; outpost postgres w=1 mixed open loop: 2; outpost mysql w=1 filled board submits: 1',
    ],
  )
})

t.test('a smaller board can fail its target but not meet it', async (t) => {
  const small = judgePerCore(
    inputs([], {
      scaleEntries: 20_000,
      scale: {
        sqlite: { readings: { 'rank top': { median: 2.5, p99: 3 } }, lost: 0 },
        postgres: { readings: { 'rank top': { median: 1, p99: 2 } }, lost: 0 },
      },
    }),
  )
  const fail = verdict(small, '1M-entry board, SQLite')
  t.same([verdictMark(fail), fail.measured], ['✗', '2.5 ms (rank top) on 20,000 entries, not 1,000,000'])
  t.equal(mark(small, '1M-entry board, PostgreSQL'), '—', 'a pass on a smaller board proves nothing')
})

t.test('open loop: the schedule, and quantiles with the requests that never answered', async (t) => {
  t.equal(scheduledAt(0, 200), 0)
  t.equal(scheduledAt(3, 200), 15, 'every 5 ms at 200/s')
  t.equal(scheduleSize(200, 2.5), 500)
  t.equal(dueCount(-1, 200, 500), 0, 'nothing before the start')
  t.equal(dueCount(0, 200, 500), 1, 'the first is due at once')
  t.equal(dueCount(14.9, 200, 500), 3, 'at 0, 5 and 10 ms')
  t.equal(dueCount(15, 200, 500), 4)
  t.equal(dueCount(60_000, 200, 500), 500, 'never more than the schedule holds')
  const hundred = Array.from({ length: 100 }, (_, i) => i + 1)
  t.equal(quantileWithMissing(hundred, 0, 0.99), 99)
  t.equal(quantileWithMissing(hundred, 0, 0.5), 50)
  t.equal(quantileWithMissing(hundred.slice(0, 99), 1, 0.99), 99, 'one missing in 100 is beyond p99')
  t.equal(quantileWithMissing(hundred.slice(0, 98), 2, 0.99), Number.POSITIVE_INFINITY, 'two in 100 are not')
  t.ok(Number.isNaN(quantileWithMissing([], 0, 0.99)))
})

/** A server that answers every request after `delayMs`, counting them. */
async function slowServer(delayMs: number) {
  let answered = 0
  const server = createServer((_req, res) => {
    setTimeout(() => {
      answered++
      res.end('{}')
    }, delayMs)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answered: () => answered,
    close: () => new Promise((resolve) => server.close(resolve)),
  }
}

const scenario = { next: () => ({ method: 'GET', path: '/x', headers: {} }) }

t.test('open loop: latency from the schedule; a full pipe drops rather than waits', async (t) => {
  const server = await slowServer(20)
  t.teardown(server.close)
  const base = { url: server.url, connections: 8, timeoutMs: 5000, warmup: 0, scenario }
  const easy = await runOpenLoop({ ...base, rate: 100, duration: 1, maxInFlight: 50 })
  t.same([easy.scheduled, easy.completed, easy.dropped, easy.errors], [100, 100, 0, 0])
  t.equal(server.answered(), 100, 'every scheduled request reached the server')
  // 19: a Node timer may fire up to a millisecond early against performance.now().
  t.ok(easy.p50 >= 19 && easy.p99 < 1000, `p50 ${easy.p50} ms includes the server's 20 ms`)
  const warmed = await runOpenLoop({ ...base, rate: 100, duration: 0.5, warmup: 0.5, maxInFlight: 50 })
  t.same([warmed.scheduled, warmed.completed], [50, 50], 'the warm-up is sent but not counted')
  t.equal(server.answered(), 200, "the warm-up's 50 reached the server too")
  // 200/s at 20 ms each is about 4 outstanding: at most 2 allowed, so about half are dropped.
  const full = await runOpenLoop({ ...base, rate: 200, duration: 0.5, maxInFlight: 2 })
  t.equal(full.scheduled, 100)
  t.ok(full.dropped > 20, `${full.dropped} dropped`)
  t.equal(full.completed + full.dropped, 100, 'each scheduled request answered or dropped')
  t.equal(full.p99, Number.POSITIVE_INFINITY, 'drops count as infinitely slow')
  // One connection at 100/s against 20 ms answers: requests queue behind each other, and the wait counts.
  const queued = await runOpenLoop({ ...base, rate: 100, duration: 0.5, maxInFlight: 100, connections: 1 })
  t.equal(queued.dropped, 0)
  t.ok(queued.p99 > 200, `p99 ${queued.p99} ms: the queue's wait is not hidden`)
})
