import { spawn, type ChildProcess } from 'node:child_process'
import { connect } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Test } from 'tap'
import { ADMIN, ADMIN_KEY, API_KEY } from './app.js'

/**
 * The client side of the soaks (test/resilience/soak.test.ts, galera-soak.test.ts): every request timed
 * and classified, and the players' scripts, each remembering what the servers acknowledged so that the
 * database can be checked against it afterwards (soak-checks.ts). An answer is *definite* when it is
 * neither a network error nor a 503: after those the client cannot know whether its write happened,
 * and the checks allow both.
 */

/** The gift code every player tries, of MAX_REDEMPTIONS uses. */
export const GIFT_CODE = 'SOAK-GIFT'
export const MAX_REDEMPTIONS = 8
/** What each accepted run credits. */
export const RUN_VALUE = { key: 'coins', amount: 5 }
const STEPS_PER_PLAYER = 12

export interface Answer {
  status: number
  body: any
  headers: Headers
}

export class Traffic {
  readonly byStatus = new Map<string, number>()
  readonly violations: string[] = []
  /** Requests that got no answer: the server, and when (ms into the soak) the client learnt it. */
  readonly networkErrors: Array<{ server: number; at: number; what: string }> = []
  readonly startedAt = performance.now()
  requests = 0
  /** How long each request took to be answered (or given up on), in ms. */
  readonly durations: number[] = []
  maxMs = 0
  slowest = ''

  constructor(
    readonly servers: string[],
    private readonly headers: Record<string, string>,
    private readonly clientTimeoutMs: number,
  ) {}

  elapsed() {
    return performance.now() - this.startedAt
  }

  /** One request; null when it got no HTTP answer (refused, cut, or past the client's timeout). */
  async send(
    server: number,
    method: string,
    path: string,
    options: { body?: unknown; headers?: Record<string, string>; expect: number[] },
  ): Promise<Answer | null> {
    const started = performance.now()
    this.requests++
    let answer: Answer | null = null
    try {
      const response = await fetch(`${this.servers[server]}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...this.headers, ...options.headers },
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: AbortSignal.timeout(this.clientTimeoutMs),
      })
      const text = await response.text()
      answer = { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers }
    } catch (error) {
      const err = error as Error & { cause?: { code?: string; message?: string } }
      const what =
        err.name === 'TimeoutError' ? 'client timeout' : (err.cause?.code ?? err.cause?.message ?? err.message)
      if (err.name === 'TimeoutError')
        this.violations.push(`${method} ${path}: no answer within ${this.clientTimeoutMs} ms`)
      this.networkErrors.push({ server, at: this.elapsed(), what })
      this.count(`no answer (${what})`)
      return null
    } finally {
      const ms = performance.now() - started
      this.durations.push(ms)
      if (ms > this.maxMs) {
        this.maxMs = ms
        this.slowest = `${method} ${path.split('?')[0]} → ${answer?.status ?? 'no answer'}`
      }
    }
    const code = answer.status >= 400 ? ` ${answer.body?.code ?? ''}`.trimEnd() : ''
    this.count(`${answer.status}${code}`)
    if (answer.status === 503) {
      // The documented 503: the database did not answer within its bound, and the client is told when to retry.
      if (answer.body?.code !== 'SERVICE_UNAVAILABLE' || !answer.headers.get('retry-after'))
        this.violations.push(`${method} ${path}: an undocumented 503 ${JSON.stringify(answer.body)}`)
    } else if (!options.expect.includes(answer.status)) {
      this.violations.push(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`)
    }
    return answer
  }

  private count(key: string) {
    this.byStatus.set(key, (this.byStatus.get(key) ?? 0) + 1)
  }
}

export const definite = (answer: Answer | null): answer is Answer => answer !== null && answer.status !== 503

/** What one player was told, to be checked against the database afterwards. */
export interface Player {
  userId: string
  bearer: Record<string, string>
  /** Leaderboard `default`: the best acknowledged score and the highest one ever sent. */
  ackedScore: number
  sentScore: number
  ackedSubmits: number
  /** The cloud-save chain: the version the client knows and the data it may hold; `pending` after an unanswered save. */
  save: { version: number; known: Set<string>; pending: Set<string>; acked: number }
  /** Board `runs`: the best score of an acknowledged accepted run. */
  ackedRunScore: number
  /** Runs answered accepted (each at most once). */
  acceptedRuns: string[]
  redeem: 'none' | 'redeemed' | 'redeemed-unanswered' | 'exhausted' | 'unknown'
}

export interface Soak {
  traffic: Traffic
  giftCode: string
  runValue: { key: string; amount: number }
  /** Players whose sign-up was answered 201 (one without an answer is not a player). */
  players: Player[]
  next: number
}

/** Round robin over the servers, request by request. */
const pick = (soak: Soak) => soak.next++ % soak.traffic.servers.length

/** Waits a little after an unclear answer, so that a client does not spin on a server that is down. */
const pause = () => sleep(150)

export async function signUp(soak: Soak, until: number): Promise<Player | null> {
  while (soak.traffic.elapsed() < until) {
    const answer = await soak.traffic.send(pick(soak), 'POST', '/user-management/signup', {
      body: { type: 'ANONYMOUS' },
      expect: [201],
    })
    if (answer?.status === 201) {
      const player: Player = {
        userId: answer.body.userId,
        bearer: { authorization: `Bearer ${answer.body.accessToken}` },
        ackedScore: 0,
        sentScore: 0,
        ackedSubmits: 0,
        save: { version: 0, known: new Set(), pending: new Set(), acked: 0 },
        ackedRunScore: 0,
        acceptedRuns: [],
        redeem: 'none',
      }
      soak.players.push(player)
      return player
    }
    await pause()
  }
  return null
}

export async function submitScore(soak: Soak, player: Player) {
  const score = player.sentScore + 1 + (soak.next % 7)
  player.sentScore = score
  const answer = await soak.traffic.send(pick(soak), 'POST', '/leaderboards/default/submit', {
    body: { userId: player.userId, score },
    headers: player.bearer,
    expect: [200],
  })
  if (answer?.status === 200) {
    if (answer.body.score < score)
      soak.traffic.violations.push(`submit ${score} answered a stored ${answer.body.score}`)
    player.ackedScore = Math.max(player.ackedScore, score)
    player.ackedSubmits++
  } else await pause()
}

/** A conditional save on the version the client knows (body `expectedVersion` or `If-Match`, by turns). */
export async function saveGame(soak: Soak, player: Player) {
  const { save } = player
  const data = `${player.userId}#${soak.traffic.requests}`
  const conditional = soak.next % 2 === 0
  const answer = await soak.traffic.send(pick(soak), 'POST', '/cloud-save/save', {
    body: { userId: player.userId, data, ...(conditional ? { expectedVersion: save.version } : {}) },
    headers: { ...player.bearer, ...(conditional ? {} : { 'if-match': String(save.version) }) },
    expect: [200, 409],
  })
  if (!definite(answer)) {
    save.pending.add(data)
    return pause()
  }
  if (answer.status === 200) {
    if (answer.body.version !== save.version + 1)
      soak.traffic.violations.push(`save on version ${save.version} answered version ${answer.body.version}`)
    // An earlier unanswered save did not happen: this one took the next version.
    save.version = answer.body.version
    save.known = new Set([data])
    save.pending.clear()
    save.acked++
  } else if (save.pending.size > 0 && answer.body.currentVersion === save.version + 1) {
    // An earlier unanswered save did happen: the next version holds one of those.
    save.version++
    save.known = new Set(save.pending)
    save.pending.clear()
  } else {
    soak.traffic.violations.push(
      `save on version ${save.version} (no other writer) refused: ${JSON.stringify(answer.body)}`,
    )
  }
}

/** A validated run on board `runs`: started, then its submit sent twice at once (a client's retry). */
export async function validatedRun(soak: Soak, player: Player) {
  const started = await soak.traffic.send(pick(soak), 'POST', '/validated-actions/runs', {
    body: { userId: player.userId, leaderboardKey: 'runs' },
    headers: player.bearer,
    expect: [200],
  })
  if (started?.status !== 200) return pause()
  const score = player.ackedRunScore + 1 + (soak.next % 5)
  const submit = () =>
    soak.traffic.send(pick(soak), 'POST', '/validated-actions/submit', {
      body: {
        userId: player.userId,
        ticket: started.body.ticket,
        inputLogHash: 'a'.repeat(64),
        score,
        leaderboardKey: 'runs',
        earned: [soak.runValue],
      },
      headers: player.bearer,
      expect: [200, 422],
    })
  const answers = await Promise.all([submit(), submit()])
  const accepted = answers.filter((a) => a?.status === 200 && a.body.accepted === true)
  for (const answer of answers)
    if (answer?.status === 422 && answer.body.code !== 'TICKET_CONSUMED')
      soak.traffic.violations.push(`run refused: ${JSON.stringify(answer.body)}`)
  if (accepted.length > 1) soak.traffic.violations.push(`run ${started.body.runId} accepted twice`)
  if (accepted.length > 0) {
    player.acceptedRuns.push(started.body.runId)
    player.ackedRunScore = Math.max(player.ackedRunScore, score)
  }
}

/** Redeems the shared gift code, retrying until a definite answer (or giving up after `tries`). */
export async function redeem(soak: Soak, player: Player, tries = 40) {
  let unanswered = false
  for (let i = 0; i < tries; i++) {
    const answer = await soak.traffic.send(pick(soak), 'POST', '/gift-codes/redeem', {
      body: { code: soak.giftCode, userId: player.userId },
      headers: player.bearer,
      expect: [200],
    })
    if (!definite(answer)) {
      unanswered = true
      await pause()
      continue
    }
    if (answer.body.success === true) player.redeem = 'redeemed'
    else if (answer.body.reason === 'ALREADY_REDEEMED' && unanswered) player.redeem = 'redeemed-unanswered'
    // ALREADY_REDEEMED is answered before EXHAUSTED: a player whose unanswered try went through hears that.
    else if (answer.body.reason === 'EXHAUSTED') player.redeem = 'exhausted'
    else soak.traffic.violations.push(`redeem answered ${JSON.stringify(answer.body)}`)
    return
  }
  player.redeem = 'unknown'
}

/**
 * The soak's board, value and gift code, made through the admin API of the server at `base`
 * (`http://127.0.0.1:port`), and the client state over `urls` (each server's app API).
 */
export async function prepareSoak(base: string, urls: string[], clientTimeoutMs: number): Promise<Soak> {
  const admin = async (method: string, path: string, body: unknown) => {
    const response = await fetch(`${base}${ADMIN}${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-admin-key': ADMIN_KEY },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(clientTimeoutMs),
    })
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`)
  }
  await admin('PUT', '/leaderboards/runs', { name: 'Soak runs', validatedOnly: true })
  await admin('PUT', `/validated-actions/values/${RUN_VALUE.key}`, {})
  await admin('POST', '/gift-codes', { code: GIFT_CODE, giftData: '{"gems":1}', maxRedemptions: MAX_REDEMPTIONS })
  return {
    traffic: new Traffic(urls, { 'x-api-key': API_KEY }, clientTimeoutMs),
    giftCode: GIFT_CODE,
    runValue: RUN_VALUE,
    players: [],
    next: 0,
  }
}

/**
 * One client of the load: new players one after the other, each a fixed script of writes (a sign-up,
 * the gift code, then scores, saves and validated runs by turns), until `stopAt()` (ms into the soak).
 */
export async function soakClient(soak: Soak, stopAt: () => number): Promise<void> {
  const at = () => soak.traffic.elapsed()
  while (at() < stopAt()) {
    const player = await signUp(soak, stopAt())
    if (!player) return
    for (let step = 0; step < STEPS_PER_PLAYER && at() < stopAt(); step++) {
      if (step === 1) await redeem(soak, player)
      else if (step % 3 === 0) await submitScore(soak, player)
      else if (step % 3 === 1) await saveGame(soak, player)
      else await validatedRun(soak, player)
    }
  }
}

/**
 * A redis-server of the test's own on `port` (never the machine's, which other tests use), without
 * persistence: `stop` kills it as a crash would, `start` brings up an empty one on the same port.
 */
export function ownRedis(t: Test, port: number) {
  let child: ChildProcess | null = null
  const exited = () => child === null || child.exitCode !== null || child.signalCode !== null
  const redis = {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: 'ignore' },
      )
      for (let i = 0; i < 100; i++) {
        if (exited()) throw new Error(`redis-server on port ${port} exited at start`)
        const up = await new Promise<boolean>((resolve) => {
          const socket = connect(port, '127.0.0.1', () => (socket.destroy(), resolve(true)))
          socket.on('error', () => resolve(false))
        })
        if (up) return
        await sleep(50)
      }
      throw new Error(`redis-server did not listen on port ${port} within 5 s`)
    },
    async stop() {
      if (exited()) return
      const gone = new Promise((resolve) => child!.once('exit', resolve))
      child!.kill('SIGKILL')
      await gone
    },
  }
  t.teardown(() => redis.stop())
  return redis
}
