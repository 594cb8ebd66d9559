import type { FastifyBaseLogger } from 'fastify'
import type { Db } from '../../db/types.js'
import { inTransaction } from '../../db/transaction.js'
import type { Clock } from '../../platform/core/clock.js'
import { Outbox } from '../../platform/jobs/outbox.js'
import { IDLE_AFTER, idleDelay } from '../../platform/jobs/polling.js'
import type { WebhookFormat } from './schemas.js'
import { formatBody, type StoredEvent } from './format.js'
import { recordAttemptHealth } from './health.js'
import type { Sender } from './sender.js'
import { SendSlots } from './slots.js'
import { signatureHeaders } from './signing.js'

/**
 * The delivery worker, in every server process. Each due delivery is claimed from the outbox
 * (platform/jobs/outbox.ts) by a conditional UPDATE (pending → processing under a lease), so however
 * many processes poll one database, one sends it; a lease that lapsed (the process died or hung
 * mid-send) is taken back. Sends run in
 * the background of the poll, at most `concurrency` at once and `perEndpoint` per endpoint, so a slow
 * or dead receiver holds a slot of its own and never the other endpoints' deliveries, nor a request.
 *
 * One worker per game, each polling its game's outbox; their sends share the process's slots
 * (slots.ts), of which one game takes at most its `concurrency`, and a game that finds none free
 * waits in line for the next. An idle game's outbox is polled less and less often
 * (platform/jobs/polling.ts); an event this instance queues wakes its game's worker at once.
 */
export interface WebhookWorkerSettings {
  maxAttempts: number
  pollIntervalMs: number
  /** Sends in flight at most for this game, in this process (the process's slots bound them all). */
  concurrency: number
  /** Sends in flight to one endpoint at most, in this process. */
  perEndpoint: number
  timeoutMs: number
  /** How long a claim holds; longer than a send can take. */
  leaseMs: number
  backoffBaseMs: number
  backoffMaxMs: number
  /** The longest wait between two polls of an idle outbox (never shorter than the poll interval). */
  idleMaxMs: number
  /** The console's base URL, for the links in discord and slack messages. */
  publicUrl: string
  /** The title a chat message shows, by event type. */
  titles: ReadonlyMap<string, string>
}

/** How an attempt went: `retry` is tried again later, `failed` gives up (attempts spent, or the receiver said 410). */
export type DeliveryOutcome = 'delivered' | 'retry' | 'failed'

/** What one poll did: lapsed claims taken back and deliveries claimed (their sends go on in the background). */
export interface PassResult {
  released: number
  claimed: number
}

interface Due {
  id: string
  endpoint_id: string
  attempts: number
  payload: string
  url: string
  format: WebhookFormat
  secret: string
}

/** The wait after attempt `attempt` (1-based) failed: base · 3^(attempt−1), capped, ±20 % jitter. */
export function backoffMs(attempt: number, base: number, max: number, random = Math.random()): number {
  const plain = Math.min(max, base * 3 ** Math.max(0, attempt - 1))
  return Math.round(plain * (0.8 + 0.4 * random))
}

/** Sends due deliveries from the outbox within its concurrency limits (see WebhookWorkerSettings above). */
export class WebhookWorker {
  private timer: NodeJS.Timeout | undefined
  private stopped = true
  private timedPass = false
  private kicked = false
  /** Polls in a row that found nothing to send. */
  private empty = 0
  private chain: Promise<unknown> = Promise.resolve()
  private readonly inFlight = new Set<Promise<void>>()
  private readonly perEndpoint = new Map<string, number>()
  private readonly outbox: Outbox<'webhook_deliveries'>

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: FastifyBaseLogger,
    private readonly sender: Sender,
    readonly settings: WebhookWorkerSettings,
    private readonly onDelivery: (event: string, endpointId: string, outcome: DeliveryOutcome) => void = () => {},
    /** The process's send slots, shared with the other games' workers (a worker of its own by default). */
    private readonly slots = new SendSlots(settings.concurrency),
    /** The game whose outbox this is (its place in the slots' line). */
    private readonly game = 'default',
  ) {
    this.outbox = new Outbox({
      table: 'webhook_deliveries',
      key: 'id',
      token: 'claim_token',
      lease: { until: 'lease_until' },
      leaseMs: settings.leaseMs,
      status: 'status',
      attempts: 'attempts',
      dueAt: 'next_attempt_at',
      updatedAt: 'updated_at',
      maxAttempts: settings.maxAttempts,
    })
  }

  get running(): boolean {
    return !this.stopped
  }

  /** Sends in flight in this process. */
  get active(): number {
    return this.inFlight.size
  }

  start(): void {
    if (!this.stopped) return
    this.stopped = false
    this.schedule(this.settings.pollIntervalMs)
  }

  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    this.slots.leave(this.game)
    await this.chain
    await Promise.all([...this.inFlight])
    this.slots.leave(this.game)
  }

  /** Deliveries were queued by this instance: an idle worker polls at once, a busy one at its next poll. */
  wake(): void {
    const idle = this.empty >= IDLE_AFTER
    this.empty = 0
    if (idle) this.kick()
  }

  /** One poll, and the sends it started finished (tests drive the worker with this). */
  async runOnce(): Promise<PassResult> {
    const result = await this.poll()
    await Promise.all([...this.inFlight])
    return result
  }

  /** One poll: take back lapsed leases, claim due deliveries up to the free slots, start their sends. */
  poll(): Promise<PassResult> {
    const next = this.chain.then(() => this.pass())
    this.chain = next.catch(() => undefined)
    return next
  }

  /** One timer at a time: a kick during a timed pass asks that pass to go on at once when it ends. */
  private schedule(delay: number) {
    clearTimeout(this.timer)
    this.timer = setTimeout(async () => {
      this.timer = undefined
      this.timedPass = true
      try {
        const result = await this.poll()
        this.empty = result.claimed > 0 || result.released > 0 || this.inFlight.size > 0 ? 0 : this.empty + 1
      } catch (err) {
        this.log.error({ err }, 'webhook worker pass failed')
      }
      this.timedPass = false
      const { pollIntervalMs, idleMaxMs } = this.settings
      const next = this.kicked ? 0 : idleDelay(this.empty, pollIntervalMs, idleMaxMs)
      this.kicked = false
      if (!this.stopped) this.schedule(next)
    }, delay)
    this.timer.unref()
  }

  /** A send slot came free (or was kept for this game): a backlog goes on at once rather than after the poll interval. */
  private kick() {
    if (this.stopped) return
    if (this.timedPass) this.kicked = true
    else this.schedule(0)
  }

  private async pass(): Promise<PassResult> {
    const result: PassResult = { released: await this.reclaimLapsed(), claimed: 0 }
    const room = this.settings.concurrency - this.inFlight.size
    if (room <= 0) {
      this.slots.take(this.game, 0, () => this.kick())
      return result
    }
    const busy = [...this.perEndpoint].filter(([, n]) => n >= this.settings.perEndpoint).map(([id]) => id)
    let q = this.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
      .select(['d.id', 'd.endpoint_id', 'd.attempts', 'd.payload', 'e.url', 'e.format', 'e.secret'])
      .where('d.status', '=', 'pending')
      .where('d.next_attempt_at', '<=', this.clock.now())
      // A disabled endpoint's deliveries wait until it is enabled again; a test is sent regardless.
      .where((eb) => eb.or([eb('e.enabled', '=', 1), eb('d.event_type', '=', 'webhook.test')]))
    if (busy.length > 0) q = q.where('d.endpoint_id', 'not in', busy)
    const due = (await q
      .orderBy('d.next_attempt_at')
      .orderBy('d.id')
      .limit(room * 4)
      .execute()) as Due[]
    // The slots this poll may use: what the shared ones spare, up to what is due and the game's room.
    let granted = this.slots.take(this.game, Math.min(room, due.length), () => this.kick())
    try {
      for (const delivery of due) {
        if (granted === 0) break
        if ((this.perEndpoint.get(delivery.endpoint_id) ?? 0) >= this.settings.perEndpoint) continue
        const candidate = { key: delivery.id, attempts: delivery.attempts }
        const token = await this.outbox.claim(this.db, candidate, this.clock.now())
        if (!token) continue
        granted--
        result.claimed++
        this.perEndpoint.set(delivery.endpoint_id, (this.perEndpoint.get(delivery.endpoint_id) ?? 0) + 1)
        const send: Promise<void> = this.deliver(delivery, token)
          .catch((err) => this.log.error({ err, deliveryId: delivery.id }, 'webhook delivery failed to record'))
          .finally(() => {
            this.inFlight.delete(send)
            this.slots.give(this.game)
            const left = (this.perEndpoint.get(delivery.endpoint_id) ?? 1) - 1
            if (left > 0) this.perEndpoint.set(delivery.endpoint_id, left)
            else this.perEndpoint.delete(delivery.endpoint_id)
            this.kick()
          })
        this.inFlight.add(send)
      }
    } finally {
      // Slots taken and not used (claims another instance won) go back at once.
      this.slots.give(this.game, granted)
    }
    return result
  }

  private async deliver(delivery: Due, token: string): Promise<void> {
    const attempt = Number(delivery.attempts) + 1
    const event = JSON.parse(delivery.payload) as StoredEvent
    const body = formatBody(event, delivery.format, this.settings.publicUrl, this.settings.titles)
    const headers = signatureHeaders(delivery.secret, delivery.id, Math.floor(this.clock.now() / 1000), body)
    const sent = await this.sender.send(delivery.url, headers, body, this.settings.timeoutMs)
    const ok = sent.statusCode !== null && sent.statusCode >= 200 && sent.statusCode < 300
    const gone = sent.statusCode === 410
    const outcome: DeliveryOutcome = ok
      ? 'delivered'
      : !gone && attempt < this.settings.maxAttempts
        ? 'retry'
        : 'failed'
    const now = this.clock.now()
    const nextAttemptAt =
      outcome === 'retry' ? now + backoffMs(attempt, this.settings.backoffBaseMs, this.settings.backoffMaxMs) : null
    const error = gone ? 'The receiver answered 410 Gone: the webhook was disabled' : sent.error
    await inTransaction(this.db, async (trx) => {
      const recorded = { response_code: sent.statusCode, duration_ms: sent.durationMs, error }
      const finished =
        nextAttemptAt !== null
          ? await this.outbox.retryAt(trx, delivery.id, token, now, nextAttemptAt, recorded)
          : await this.outbox.finish(trx, delivery.id, token, now, outcome, { ...recorded, next_attempt_at: now })
      // The lease lapsed and another process took the delivery back: its attempt is the one recorded.
      if (!finished) return
      await trx
        .insertInto('webhook_attempts')
        .values({
          delivery_id: delivery.id,
          attempt,
          at: now,
          outcome,
          response_code: sent.statusCode,
          duration_ms: sent.durationMs,
          error,
          next_attempt_at: nextAttemptAt,
        })
        .execute()
      await recordAttemptHealth(trx, delivery.endpoint_id, { outcome, responseCode: sent.statusCode, at: now })
      if (gone) {
        await trx
          .updateTable('webhook_endpoints')
          .set({
            enabled: 0,
            disabled_reason: `The receiver answered 410 Gone at ${new Date(now).toISOString()}`,
            updated_at: now,
          })
          .where('id', '=', delivery.endpoint_id)
          .execute()
      }
    })
    this.onDelivery(event.type, delivery.endpoint_id, outcome)
    if (outcome !== 'delivered') {
      this.log.warn(
        { deliveryId: delivery.id, webhookId: delivery.endpoint_id, attempt, statusCode: sent.statusCode, outcome },
        'webhook delivery attempt failed',
      )
    }
  }

  /** Deliveries whose lease lapsed: their attempt counts; with attempts left they are due at once. */
  private async reclaimLapsed(): Promise<number> {
    const now = this.clock.now()
    const columns = ['id', 'attempts', 'endpoint_id', 'event_type'] as const
    const lapsed = await this.outbox.lapsedRows(this.db, now, columns, 100)
    let released = 0
    for (const row of lapsed) {
      const attempts = Number(row.attempts)
      const outcome: DeliveryOutcome = this.outbox.attemptsLeft(attempts) ? 'retry' : 'failed'
      const error = 'The attempt did not finish (the sending process stopped); its claim was taken back'
      const done = await inTransaction(this.db, async (trx) => {
        if (!(await this.outbox.reclaim(trx, { key: row.id, attempts, token: row.token }, now, { error }))) return false
        await trx
          .insertInto('webhook_attempts')
          .values({
            delivery_id: row.id,
            attempt: attempts,
            at: now,
            outcome,
            response_code: null,
            duration_ms: 0,
            error,
            next_attempt_at: outcome === 'retry' ? now : null,
          })
          .execute()
        await recordAttemptHealth(trx, row.endpoint_id, { outcome, responseCode: null, at: now })
        return true
      })
      if (done) {
        released++
        this.onDelivery(row.event_type, row.endpoint_id, outcome)
      }
    }
    return released
  }
}
