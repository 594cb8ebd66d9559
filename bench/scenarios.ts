import { randomBytes, randomInt } from 'node:crypto'
import autocannon from 'autocannon'
import type { Server } from './processes.js'

/**
 * The scenarios, for Outpost and for the PHP peer. The two speak the same client API (the horizOn
 * SDKs' contract) with a few differences, mapped here:
 * - signup: the PHP server takes only `{ type: 'ANONYMOUS', username }`;
 * - leaderboard/top: the PHP server requires a `userId` query parameter (it does not use it);
 * - cloud-save/save: the PHP server answers `{ success, dataSizeBytes }`, without a version, so its
 *   saves are checked for lost writes by time instead (see verifySavesByTime);
 * - remote config: the PHP server has no admin API; its keys are written into its database.
 */

export type Flavour = 'outpost' | 'php'

export const API_KEY = 'bench-api-key-0123456789'
export const ADMIN_KEY = 'bench-admin-key-0123456789'
const APP = '/api/v1/app'

export async function api(server: Server, method: string, path: string, body?: unknown, admin = false, key = API_KEY) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', [admin ? 'x-admin-key' : 'x-api-key']: admin ? ADMIN_KEY : key },
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

export const REMOTE_CONFIG: Array<[string, string]> = Array.from({ length: 8 }, (_, i) => [
  `game.setting${i}`,
  `value-${i}`,
])

/** Where a run with several games sends its load: over every game, or to `default` alone. */
export type GamesLoad = 'spread' | 'one'

/** Players of each game but `default` in a `one` run: its tables hold something, its caches are warm once. */
const OTHER_GAME_PLAYERS = 5

export interface Seeded {
  users: string[]
  /** The app keys the load sends, one per game it plays (`API_KEY` for `default`, first). */
  keys: string[]
  /** The key of the game each player belongs to. */
  keyOf: Map<string, string>
}

/**
 * The same players on every server: each signs up, submits one score and saves 2 KB once. With
 * `games` > 1 (Outpost only), games `bench-2` … `bench-N` are made first, each with its key and its
 * remote config. `spread`: the players are dealt out over the games in turn. `one`: they all play
 * `default`, and every other game gets OTHER_GAME_PLAYERS of its own, who take no part in the load.
 */
export async function seed(
  server: Server,
  flavour: Flavour,
  userCount: number,
  games = 1,
  load: GamesLoad = 'spread',
): Promise<Seeded> {
  const keys = [API_KEY]
  const prefixes = ['']
  for (let i = 2; i <= games; i++) {
    const made = await api(server, 'POST', '/api/v1/admin/games', { id: `bench-${i}`, name: `Bench ${i}` }, true)
    keys.push(made.key.key)
    prefixes.push(`/games/bench-${i}`)
  }
  const users: string[] = []
  const keyOf = new Map<string, string>()
  const others = load === 'one' ? keys.slice(1).flatMap((key) => Array<string>(OTHER_GAME_PLAYERS).fill(key)) : []
  await pool(
    Array.from({ length: userCount + others.length }, (_, i) => i),
    16,
    async (i) => {
      const key = i >= userCount ? others[i - userCount]! : load === 'one' ? API_KEY : keys[i % keys.length]!
      const signup = flavour === 'php' ? { type: 'ANONYMOUS', username: `Bench ${i}` } : { username: `Bench ${i}` }
      const user = await api(server, 'POST', `${APP}/user-management/signup`, signup, false, key)
      if (i < userCount) {
        users.push(user.userId)
        keyOf.set(user.userId, key)
      }
      // The same scores on every server, spread over the board (7919 is prime, so no two players tie).
      const score = (i * 7919) % 1_000_000
      await api(server, 'POST', `${APP}/leaderboard/submit`, { userId: user.userId, score }, false, key)
      await api(
        server,
        'POST',
        `${APP}/cloud-save/save`,
        { userId: user.userId, saveData: saveData('seed') },
        false,
        key,
      )
    },
  )
  if (flavour === 'outpost')
    for (const prefix of prefixes)
      for (const [key, value] of REMOTE_CONFIG)
        await api(server, 'PUT', `/api/v1/admin${prefix}/remote-config/${key}`, { value }, true)
  return { users, keys: load === 'one' ? [API_KEY] : keys, keyOf }
}

type Req = { method: string; path: string; body?: string; headers: Record<string, string> }
type Ctx = Record<string, unknown>

/** What a check after a run found: `lost` acknowledged writes not in the store, null when not checkable. */
export interface Check {
  text: string
  lost: number | null
}

export interface Scenario {
  name: string
  /** Builds the next request; `ctx` is per connection (one request in flight at a time). */
  next: (ctx: Ctx) => Req
  onResponse?: (status: number, body: string, ctx: Ctx) => void
  verify?: (server: Server) => Promise<Check>
}

// A fresh headers object per request: autocannon writes content-length into the one it is given,
// and a shared object would then send a POST's length on the next GET.
const get = (path: string, key = API_KEY): Req => ({ method: 'GET', path, headers: { 'x-api-key': key } })
const post = (path: string, body: unknown, key = API_KEY): Req => ({
  method: 'POST',
  path,
  body: JSON.stringify(body),
  headers: { 'x-api-key': key, 'content-type': 'application/json' },
})

export const SCENARIO_NAMES = [
  'health',
  'config-all',
  'signup',
  'lb-submit',
  'lb-top',
  'lb-rank',
  'lb-around',
  'save',
  'load',
  'mixed',
] as const

export function scenarios(seeded: Seeded, flavour: Flavour): Scenario[] {
  const pick = () => seeded.users[randomInt(0, seeded.users.length)]!
  /** The key of a player's game; a random game's for requests that name no player. */
  const keyOf = (userId: string) => seeded.keyOf.get(userId) ?? API_KEY
  const anyKey = () => seeded.keys[randomInt(0, seeded.keys.length)]!
  const best = new Map<string, number>()
  const saves = new Map<string, { version: number; nonce: string }>()

  const submit = (ctx: Ctx) => {
    const userId = pick()
    const score = randomInt(0, 2_000_000)
    ctx.submit = { userId, score }
    return post(`${APP}/leaderboard/submit`, { userId, score }, keyOf(userId))
  }
  const onSubmit = (status: number, _body: string, ctx: Ctx) => {
    const s = ctx.submit as { userId: string; score: number } | undefined
    if (s && status === 200) best.set(s.userId, Math.max(best.get(s.userId) ?? 0, s.score))
  }
  /** Every save by player, with when it was sent and acknowledged: the PHP server answers no version. */
  const timeline = new Map<string, Array<{ nonce: string; sent: number; acked: number | null }>>()
  const save = (ctx: Ctx) => {
    const userId = pick()
    const nonce = randomBytes(8).toString('hex')
    const entry = { nonce, sent: performance.now(), acked: null as number | null }
    ctx.save = { userId, nonce, entry }
    if (flavour === 'php') timeline.set(userId, [...(timeline.get(userId) ?? []), entry])
    return post(`${APP}/cloud-save/save`, { userId, saveData: saveData(nonce) }, keyOf(userId))
  }
  const onSave = (status: number, body: string, ctx: Ctx) => {
    const s = ctx.save as { userId: string; nonce: string; entry: { acked: number | null } } | undefined
    if (!s || status !== 200) return
    if (flavour === 'php') {
      s.entry.acked = performance.now()
      return
    }
    const { version } = JSON.parse(body) as { version: number }
    const known = saves.get(s.userId)
    if (!known || version > known.version) saves.set(s.userId, { version, nonce: s.nonce })
  }
  const top = () => get(`${APP}/leaderboard/top?limit=10${flavour === 'php' ? `&userId=${pick()}` : ''}`, anyKey())
  const rank = () => {
    const userId = pick()
    return get(`${APP}/leaderboard/rank?userId=${userId}`, keyOf(userId))
  }
  const load = () => {
    const userId = pick()
    return post(`${APP}/cloud-save/load`, { userId }, keyOf(userId))
  }
  const configAll = () => get(`${APP}/remote-config/all`, anyKey())

  const verifySubmits = async (server: Server): Promise<Check> => {
    let lost = 0
    for (const [userId, score] of best) {
      const res = await api(server, 'GET', `${APP}/leaderboard/rank?userId=${userId}`, undefined, false, keyOf(userId))
      if (res.score < score) lost++
    }
    return { text: `${best.size} users checked, ${lost} lost best scores`, lost }
  }
  // Requests still in flight when a run ends are written but never acknowledged: the stored version
  // may be ahead of the last one seen. A save is lost when the store is behind what was acknowledged,
  // or at the same version with other data.
  const verifySaves = async (server: Server): Promise<Check> => {
    if (flavour === 'php') return verifySavesByTime(server)
    let lost = 0
    let ahead = 0
    for (const [userId, { version, nonce }] of saves) {
      const res = await api(server, 'POST', `${APP}/cloud-save/load`, { userId }, false, keyOf(userId))
      if (res.version < version || (res.version === version && !String(res.saveData).includes(nonce))) lost++
      else if (res.version > version) ahead++
    }
    return {
      text: `${saves.size} saves checked, ${lost} lost (${ahead} overtaken by unacknowledged in-flight saves)`,
      lost,
    }
  }

  // Without versions, by time: a save is lost when the store holds a save that was acknowledged
  // before another acknowledged save of the same player was even sent (that one must have replaced
  // it), or holds none of the player's saves although one was acknowledged.
  const verifySavesByTime = async (server: Server): Promise<Check> => {
    let lost = 0
    let checked = 0
    for (const [userId, entries] of timeline) {
      const acked = entries.filter((e) => e.acked !== null)
      if (!acked.length) continue
      checked++
      const res = await api(server, 'POST', `${APP}/cloud-save/load`, { userId }, false, keyOf(userId))
      const stored = entries.find((e) => String(res.saveData).includes(`"nonce":"${e.nonce}"`))
      const lastSent = Math.max(...acked.map((e) => e.sent))
      if (!stored || (stored.acked !== null && stored.acked < lastSent)) lost++
    }
    return { text: `${checked} saves checked by time (no versions), ${lost} lost`, lost }
  }

  const mixedTable: Array<[number, (ctx: Ctx) => Req, Scenario['onResponse']]> = [
    [30, top, undefined],
    [20, submit, onSubmit],
    [20, load, undefined],
    [15, save, onSave],
    [10, configAll, undefined],
    [5, rank, undefined],
  ]
  const signupBody = flavour === 'php' ? () => ({ type: 'ANONYMOUS', username: 'Bench' }) : () => ({})
  return [
    { name: 'health', next: () => get(flavour === 'php' ? `${APP}/health` : '/health') },
    { name: 'config-all', next: configAll },
    { name: 'signup', next: () => post(`${APP}/user-management/signup`, signupBody(), anyKey()) },
    { name: 'lb-submit', next: submit, onResponse: onSubmit, verify: verifySubmits },
    { name: 'lb-top', next: top },
    { name: 'lb-rank', next: rank },
    {
      name: 'lb-around',
      next: () => {
        const userId = pick()
        return get(`${APP}/leaderboard/around?userId=${userId}&range=10`, keyOf(userId))
      },
    },
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
      verify: async (server) => {
        const [submits, saved] = [await verifySubmits(server), await verifySaves(server)]
        const lost = submits.lost === null && saved.lost === null ? null : (submits.lost ?? 0) + (saved.lost ?? 0)
        return { text: `${submits.text}; ${saved.text}`, lost }
      },
    },
  ]
}

export interface Result {
  /** Which server and setup, e.g. `outpost sqlite 1w`, `php`. */
  server: string
  scenario: string
  rps: number
  p50: number
  p99: number
  non2xx: number
  errors: number
  /** rps over the ceiling's rps in the same run. */
  ratio: number | null
  /** Server CPU milliseconds per request, over all its processes: steadier than rps on a busy machine. */
  cpuPerRequestMs: number
  /** The database server's share of `cpuPerRequestMs`, where its processes are counted. */
  databaseCpuPerRequestMs?: number
  /** The largest resident set of any one process of the server during the scenario. */
  peakRssMb: number
  processes: number
  /** Requests autocannon completed in the run. */
  requests?: number
  /** Statements per request (`outpost_db_statements_total`, a scrape's own taken off); null without it. */
  statementsPerRequest?: number | null
  check?: string
  lost?: number | null
}

export interface RunOptions {
  connections: number
  duration: number
}

/** One scenario under autocannon; non-2xx answers are summed by status and body start for the report. */
export async function runScenario(
  server: Server,
  label: string,
  scenario: Scenario,
  options: RunOptions,
  ceilingRps: number | null,
  logTail: () => string,
): Promise<Result> {
  const failures = new Map<string, number>()
  server.resetPeak()
  const [scrapeFirst, statementsBefore] = [(await server.statements?.()) ?? null, (await server.statements?.()) ?? null]
  const scrapeCost = scrapeFirst === null || statementsBefore === null ? 0 : statementsBefore - scrapeFirst
  const cpuBefore = server.cpuMs()
  const databaseCpuBefore = server.databaseCpuMs?.()
  const run = await autocannon({
    url: server.url,
    connections: options.connections,
    duration: options.duration,
    requests: [
      {
        setupRequest: (_req: unknown, context: Ctx) => scenario.next(context) as never,
        onResponse: (status: number, body: string, context: Ctx) => {
          if (status >= 300) {
            const key = `${status} ${body.slice(0, 120)}`
            failures.set(key, (failures.get(key) ?? 0) + 1)
          }
          scenario.onResponse?.(status, body, context)
        },
      } as never,
    ],
  })
  const cpuPerRequestMs = (server.cpuMs() - cpuBefore) / Math.max(1, run.requests.total)
  const databaseCpuAfter = server.databaseCpuMs?.()
  // Before the check below, whose reads would count.
  const statementsAfter = statementsBefore === null ? null : ((await server.statements?.()) ?? null)
  const result: Result = {
    server: label,
    scenario: scenario.name,
    rps: run.requests.average,
    p50: run.latency.p50,
    p99: run.latency.p99,
    non2xx: run.non2xx,
    errors: run.errors + run.timeouts,
    ratio: ceilingRps ? run.requests.average / ceilingRps : null,
    cpuPerRequestMs,
    ...(databaseCpuBefore === undefined || databaseCpuAfter === undefined
      ? {}
      : { databaseCpuPerRequestMs: (databaseCpuAfter - databaseCpuBefore) / Math.max(1, run.requests.total) }),
    peakRssMb: server.peakRss() / 2 ** 20,
    processes: server.peakProcesses(),
    requests: run.requests.total,
    statementsPerRequest:
      statementsBefore === null || statementsAfter === null
        ? null
        : (statementsAfter - statementsBefore - scrapeCost) / Math.max(1, run.requests.total),
  }
  if (scenario.verify) {
    const check = await scenario.verify(server)
    result.check = check.text
    result.lost = check.lost
  }
  if (result.non2xx || result.errors) {
    process.stderr.write(`!!! ${label} ${scenario.name}: ${result.non2xx} non-2xx, ${result.errors} errors\n`)
    for (const [what, count] of failures) process.stderr.write(`    ${count} × ${what}\n`)
    process.stderr.write(`server log tail:\n${logTail()}\n`)
  }
  process.stdout.write(`${label} ${scenario.name}: ${result.rps.toFixed(0)} rps, p99 ${result.p99} ms\n`)
  return result
}
