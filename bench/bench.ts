import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes, randomInt } from 'node:crypto'
import { mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import { createConnection } from 'mysql2/promise'
import { runScale } from './scale.js'

/**
 * `npm run bench`: Outpost in a child process (rate limit off), seeded through its API, then each
 * scenario under autocannon, beside a ceiling server measured in the same run. Prints one table and
 * writes it as JSON under bench/results/. Every loop here is bounded in time and count.
 */

const API_KEY = 'bench-api-key-0123456789'
const ADMIN_KEY = 'bench-admin-key-0123456789'
const APP = '/api/v1/app'
const root = fileURLToPath(new URL('../../', import.meta.url))

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    users: { type: 'string', default: '1000' },
    scenarios: { type: 'string', default: '' },
    scale: { type: 'string', default: '' },
    'mysql-url': { type: 'string', default: process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test' },
    /** The MySQL database the run drops and creates: benches run side by side each need their own. */
    'mysql-db': { type: 'string', default: 'outpost_bench' },
    /** WORKERS for the server (default: the server's own default). CPU and RSS then cover every worker. */
    workers: { type: 'string', default: '' },
    /** Write a V8 CPU profile of the server (open it in Chrome DevTools or speedscope). */
    profile: { type: 'boolean', default: false },
  },
})
const duration = Number(args.duration)
const connections = Number(args.connections)
const userCount = Number(args.users)

interface Server {
  child: ChildProcess
  url: string
  /** CPU time the process has used so far, in milliseconds (user + system). */
  cpuMs: () => number
  peakRss: () => number
  resetPeak: () => void
  stop: () => Promise<void>
}

/** Starts a node script and resolves once it listens; samples its resident memory every 100 ms. */
async function startProcess(
  script: string,
  scriptArgs: string[],
  env: Record<string, string>,
  port: number,
  logFile: string,
  nodeArgs: string[] = [],
): Promise<Server> {
  // The server's log goes to a file: an unread pipe would fill up and stall the server mid-run.
  const log = openSync(logFile, 'a')
  const child = spawn(process.execPath, [...nodeArgs, script, ...scriptArgs], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', log, log],
  })
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`)
    try {
      await fetch(`${url}/health`)
      break
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  // With WORKERS > 1 the server is a cluster primary and its workers: CPU is summed over them all,
  // and the peak RSS is that of the largest single process (the budget is per worker).
  let peak = 0
  const sample = () => {
    for (const pid of processTree(child.pid!)) {
      try {
        const status = readFileSync(`/proc/${pid}/status`, 'utf8')
        const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0)
        peak = Math.max(peak, kb * 1024)
      } catch {
        // the process is gone
      }
    }
  }
  const timer = setInterval(sample, 100)
  const ticksPerMs = 100 / 1000 // USER_HZ is 100 on Linux
  const cpuMs = () => {
    let ticks = 0
    for (const pid of processTree(child.pid!)) {
      try {
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
        ticks += Number(fields[11]) + Number(fields[12])
      } catch {
        // the process is gone
      }
    }
    return ticks / ticksPerMs
  }
  return {
    child,
    url,
    cpuMs,
    peakRss: () => (sample(), peak),
    resetPeak: () => (peak = 0),
    stop: async () => {
      clearInterval(timer)
      child.kill('SIGTERM')
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.on('exit', resolve)))
    },
  }
}

/** A process and its children (a cluster primary's workers), from /proc/<pid>/task/<tid>/children. */
function processTree(pid: number): number[] {
  const children: number[] = []
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const listed = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim()
      if (listed) children.push(...listed.split(' ').map(Number))
    }
  } catch {
    // the process is gone
  }
  return [pid, ...children]
}

async function freshMysqlDatabase(url: string): Promise<Record<string, string>> {
  const parsed = new URL(url)
  const conn = {
    host: parsed.hostname,
    port: Number(parsed.port || 3306),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
  }
  const admin = await createConnection(conn)
  const name = args['mysql-db']!
  if (!/^\w+$/.test(name)) throw new Error(`--mysql-db: not a plain database name: ${name}`)
  await admin.query(`DROP DATABASE IF EXISTS ${name}`)
  await admin.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`)
  await admin.end()
  return {
    DB_DRIVER: 'mysql',
    DB_HOST: conn.host,
    DB_PORT: String(conn.port),
    DB_USER: conn.user,
    DB_PASS: conn.password,
    DB_NAME: name,
    DB_POOL_SIZE: '16',
  }
}

async function api(server: Server, method: string, path: string, body?: unknown, admin = false) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', [admin ? 'x-admin-key' : 'x-api-key']: admin ? ADMIN_KEY : API_KEY },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${text}`)
  return text ? JSON.parse(text) : null
}

/** Runs `work` over `items` with `parallel` workers. */
async function pool<T>(items: T[], parallel: number, work: (item: T) => Promise<void>) {
  let next = 0
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < items.length) await work(items[next++]!)
    }),
  )
}

const SAVE_BYTES = 2048
const saveData = (nonce: string) => JSON.stringify({ nonce, blob: 'x'.repeat(SAVE_BYTES - 40) }).slice(0, SAVE_BYTES)

interface Seeded {
  users: string[]
}

async function seed(server: Server): Promise<Seeded> {
  const users: string[] = []
  await pool(
    Array.from({ length: userCount }, (_, i) => i),
    16,
    async (i) => {
      const user = await api(server, 'POST', `${APP}/user-management/signup`, { username: `Bench ${i}` })
      users.push(user.userId)
      await api(server, 'POST', `${APP}/leaderboard/submit`, { userId: user.userId, score: randomInt(0, 1_000_000) })
      await api(server, 'POST', `${APP}/cloud-save/save`, { userId: user.userId, saveData: saveData('seed') })
    },
  )
  for (let i = 0; i < 8; i++)
    await api(server, 'PUT', `/api/v1/admin/remote-config/game.setting${i}`, { value: `value-${i}` }, true)
  return { users }
}

type Req = { method: string; path: string; body?: string; headers: Record<string, string> }
type Ctx = Record<string, unknown>

interface Scenario {
  name: string
  /** Builds the next request; `ctx` is per connection (one request in flight at a time). */
  next: (ctx: Ctx) => Req
  onResponse?: (status: number, body: string, ctx: Ctx) => void
  verify?: (server: Server) => Promise<string>
}

// A fresh headers object per request: autocannon writes content-length into the one it is given,
// and a shared object would then send a POST's length on the next GET.
const get = (path: string): Req => ({ method: 'GET', path, headers: { 'x-api-key': API_KEY } })
const post = (path: string, body: unknown): Req => ({
  method: 'POST',
  path,
  body: JSON.stringify(body),
  headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
})

function scenarios(seeded: Seeded): Scenario[] {
  const pick = () => seeded.users[randomInt(0, seeded.users.length)]!
  const best = new Map<string, number>()
  const saves = new Map<string, { version: number; nonce: string }>()

  const submit = (ctx: Ctx) => {
    const userId = pick()
    const score = randomInt(0, 2_000_000)
    ctx.submit = { userId, score }
    return post(`${APP}/leaderboard/submit`, { userId, score })
  }
  const onSubmit = (status: number, _body: string, ctx: Ctx) => {
    const s = ctx.submit as { userId: string; score: number } | undefined
    if (s && status === 200) best.set(s.userId, Math.max(best.get(s.userId) ?? 0, s.score))
  }
  const save = (ctx: Ctx) => {
    const userId = pick()
    const nonce = randomBytes(8).toString('hex')
    ctx.save = { userId, nonce }
    return post(`${APP}/cloud-save/save`, { userId, saveData: saveData(nonce) })
  }
  const onSave = (status: number, body: string, ctx: Ctx) => {
    const s = ctx.save as { userId: string; nonce: string } | undefined
    if (!s || status !== 200) return
    const { version } = JSON.parse(body) as { version: number }
    const known = saves.get(s.userId)
    if (!known || version > known.version) saves.set(s.userId, { version, nonce: s.nonce })
  }
  const top = () => get(`${APP}/leaderboard/top?limit=10`)
  const rank = () => get(`${APP}/leaderboard/rank?userId=${pick()}`)
  const load = () => post(`${APP}/cloud-save/load`, { userId: pick() })
  const configAll = () => get(`${APP}/remote-config/all`)

  const verifySubmits = async (server: Server) => {
    let lost = 0
    for (const [userId, score] of best) {
      const res = await api(server, 'GET', `${APP}/leaderboard/rank?userId=${userId}`)
      if (res.score < score) lost++
    }
    return `${best.size} users checked, ${lost} lost best scores`
  }
  // Requests still in flight when a run ends are written but never acknowledged: the stored version
  // may be ahead of the last one seen. A save is lost when the store is behind what was acknowledged,
  // or at the same version with other data.
  const verifySaves = async (server: Server) => {
    let lost = 0
    let ahead = 0
    for (const [userId, { version, nonce }] of saves) {
      const res = await api(server, 'POST', `${APP}/cloud-save/load`, { userId })
      if (res.version < version || (res.version === version && !String(res.saveData).includes(nonce))) lost++
      else if (res.version > version) ahead++
    }
    return `${saves.size} saves checked, ${lost} lost (${ahead} overtaken by unacknowledged in-flight saves)`
  }

  const mixedTable: Array<[number, (ctx: Ctx) => Req, Scenario['onResponse']]> = [
    [30, top, undefined],
    [20, submit, onSubmit],
    [20, load, undefined],
    [15, save, onSave],
    [10, configAll, undefined],
    [5, rank, undefined],
  ]
  return [
    { name: 'health', next: () => get('/health') },
    { name: 'config-all', next: configAll },
    { name: 'signup', next: () => post(`${APP}/user-management/signup`, {}) },
    { name: 'lb-submit', next: submit, onResponse: onSubmit, verify: verifySubmits },
    { name: 'lb-top', next: top },
    { name: 'lb-rank', next: rank },
    { name: 'lb-around', next: () => get(`${APP}/leaderboard/around?userId=${pick()}&range=10`) },
    { name: 'save', next: save, onResponse: onSave, verify: verifySaves },
    { name: 'load', next: load },
    {
      name: 'mixed',
      next: (ctx) => {
        let roll = randomInt(0, 100)
        for (const [weight, make, onResponse] of mixedTable) {
          if (roll < weight) {
            ctx.onResponse = onResponse
            return make(ctx)
          }
          roll -= weight
        }
        throw new Error('weights must add up to 100')
      },
      onResponse: (status, body, ctx) => (ctx.onResponse as Scenario['onResponse'])?.(status, body, ctx),
      verify: async (server) => `${await verifySubmits(server)}; ${await verifySaves(server)}`,
    },
  ]
}

interface Result {
  scenario: string
  rps: number
  p50: number
  p99: number
  non2xx: number
  errors: number
  ratio: number | null
  /** Server CPU milliseconds per request: steadier than rps on a machine that is busy elsewhere. */
  cpuPerRequestMs: number
  peakRssMb: number
  check?: string
}

/** Non-2xx answers of the current scenario, by status and body start: printed when there are any. */
const failures = new Map<string, number>()

async function hammer(url: string, scenario: Scenario): Promise<autocannon.Result> {
  failures.clear()
  return autocannon({
    url,
    connections,
    duration,
    requests: [
      {
        setupRequest: (_req: unknown, context: Ctx) => scenario.next(context) as never,
        onResponse: (status: number, body: string, context: Ctx) => {
          if (status >= 300)
            failures.set(`${status} ${body.slice(0, 120)}`, (failures.get(`${status} ${body.slice(0, 120)}`) ?? 0) + 1)
          scenario.onResponse?.(status, body, context)
        },
      } as never,
    ],
  })
}

function printTable(results: Result[], meta: Record<string, unknown>) {
  const rows = results.map((r) => [
    r.scenario,
    r.rps.toFixed(0),
    `${r.p50} ms`,
    `${r.p99} ms`,
    String(r.non2xx),
    String(r.errors),
    r.ratio === null ? '—' : `${(r.ratio * 100).toFixed(0)} %`,
    `${(r.cpuPerRequestMs * 1000).toFixed(0)} µs`,
    `${r.peakRssMb.toFixed(0)} MB`,
  ])
  const head = ['scenario', 'rps', 'p50', 'p99', 'non-2xx', 'errors', 'of ceiling', 'cpu/req', 'peak RSS']
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`
  process.stdout.write(
    `\n${Object.entries(meta)
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ')}\n`,
  )
  process.stdout.write(`${line(head)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|\n`)
  for (const row of rows) process.stdout.write(`${line(row)}\n`)
  for (const r of results) if (r.check) process.stdout.write(`check ${r.scenario}: ${r.check}\n`)
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-bench-'))
  const dbEnv =
    args.db === 'mysql'
      ? await freshMysqlDatabase(args['mysql-url']!)
      : { DB_DRIVER: 'sqlite', DB_PATH: join(dir, 'bench.db') }
  const port = 18000 + randomInt(0, 1000)
  const env = {
    ...dbEnv,
    API_KEY,
    ADMIN_API_KEY: ADMIN_KEY,
    PORT: String(port),
    HOST: '127.0.0.1',
    RATE_LIMIT_ENABLED: 'false',
    LOG_LEVEL: 'warn',
    ...(args.workers && { WORKERS: args.workers }),
  }
  const serverLog = join(dir, 'server.log')
  const profile = args.profile ? ['--cpu-prof', `--cpu-prof-dir=${join(root, 'bench/results/profiles')}`] : []
  const server = await startProcess(join(root, 'dist/server.js'), [], env, port, serverLog, profile)
  try {
    if (args.scale) {
      await runScale({
        url: server.url,
        apiKey: API_KEY,
        dbEnv,
        entries: Number(args.scale),
        resultsDir: join(root, 'bench/results'),
      })
      return
    }
    const ceilingPort = port + 1000
    const ceiling = await startProcess(
      join(root, 'dist/bench/ceiling.js'),
      [String(ceilingPort), API_KEY],
      {},
      ceilingPort,
      join(dir, 'ceiling.log'),
    )
    process.stdout.write(`seeding ${userCount} users…\n`)
    const seeded = await seed(server)
    const ceilingCpuBefore = ceiling.cpuMs()
    const ceilingRun = await autocannon({
      url: `${ceiling.url}/ceiling`,
      connections,
      duration,
      headers: { 'x-api-key': API_KEY },
    })
    const ceilingCpu = (ceiling.cpuMs() - ceilingCpuBefore) / Math.max(1, ceilingRun.requests.total)
    await ceiling.stop()
    const ceilingRps = ceilingRun.requests.average
    const results: Result[] = [
      {
        scenario: 'ceiling',
        rps: ceilingRps,
        p50: ceilingRun.latency.p50,
        p99: ceilingRun.latency.p99,
        non2xx: ceilingRun.non2xx,
        errors: ceilingRun.errors,
        ratio: null,
        cpuPerRequestMs: ceilingCpu,
        peakRssMb: ceiling.peakRss() / 2 ** 20,
      },
    ]
    const selected = args.scenarios ? args.scenarios.split(',') : null
    for (const scenario of scenarios(seeded)) {
      if (selected && !selected.includes(scenario.name)) continue
      server.resetPeak()
      const cpuBefore = server.cpuMs()
      const run = await hammer(server.url, scenario)
      const cpuPerRequestMs = (server.cpuMs() - cpuBefore) / Math.max(1, run.requests.total)
      const result: Result = {
        scenario: scenario.name,
        rps: run.requests.average,
        p50: run.latency.p50,
        p99: run.latency.p99,
        non2xx: run.non2xx,
        errors: run.errors + run.timeouts,
        ratio: run.requests.average / ceilingRps,
        cpuPerRequestMs,
        peakRssMb: server.peakRss() / 2 ** 20,
      }
      if (scenario.verify) result.check = await scenario.verify(server)
      if (result.non2xx || result.errors) {
        process.stderr.write(`!!! ${scenario.name}: ${result.non2xx} non-2xx, ${result.errors} errors\n`)
        for (const [what, count] of failures) process.stderr.write(`    ${count} × ${what}\n`)
        process.stderr.write('server log tail:\n')
        process.stderr.write(`${readFileSync(serverLog, 'utf8').split('\n').slice(-5).join('\n').slice(0, 2000)}\n`)
      }
      results.push(result)
      process.stdout.write(`${scenario.name}: ${result.rps.toFixed(0)} rps, p99 ${result.p99} ms\n`)
    }
    const meta = {
      db: args.db,
      connections,
      duration: `${duration} s`,
      users: userCount,
      node: process.version,
      cpus: 2,
      workers: args.workers || 'default',
    }
    printTable(results, meta)
    mkdirSync(join(root, 'bench/results'), { recursive: true })
    const file = join(root, 'bench/results', `bench-${args.db}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`)
    writeFileSync(file, JSON.stringify({ meta, results }, null, 2))
    process.stdout.write(`\nwritten: ${file}\n`)
    if (args.db === 'sqlite')
      process.stdout.write(`database size: ${(statSync(join(dir, 'bench.db')).size / 2 ** 20).toFixed(1)} MB\n`)
  } finally {
    await server.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`)
  process.exit(1)
})
