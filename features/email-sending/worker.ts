import fp from 'fastify-plugin'
import nodemailer from 'nodemailer'
import type { FastifyBaseLogger } from 'fastify'
import type { UpdateObject } from 'kysely'
import type { Database, Db } from '../../db/types.js'
import type { EmailRow } from './tables.js'
import { inTransaction, retryOnConflict } from '../../db/transaction.js'
import type { Clock } from '../../platform/core/clock.js'
import type { EventSender } from '../../platform/core/events.js'
import { Outbox } from '../../platform/jobs/outbox.js'
import { IDLE_AFTER, idleDelay } from '../../platform/jobs/polling.js'
import { backgroundPerGame, countOverGames, type BackgroundPerGame } from '../../platform/games/background.js'
import { countEmailsByStatus, scrubAccountBody } from './service.js'

/**
 * The delivery worker: runs inside every server process, polls for due e-mails and sends them over
 * SMTP. Each e-mail is claimed from the outbox (platform/jobs/outbox.ts) by a conditional UPDATE
 * (pending → processing under a lease), so however many instances poll one database, one of them
 * sends it. Transient failures (SMTP 4xx, connection errors) go back to pending with exponential
 * backoff until EMAIL_MAX_ATTEMPTS; permanent ones (SMTP 5xx) end `failed` with the reason. A lease
 * that lapsed (a process died mid-send) is taken back, so nothing stays `processing` forever.
 *
 * One worker per game, each polling its game's own queue; they share the one SMTP connection, and
 * since each sends one mail at a time and the pool serves waiting sends in order, a game with a long
 * queue holds at most one place in the line: another game's mail waits for at most one send per busy
 * game. An idle game's queue is polled less and less often (platform/jobs/polling.ts), up to
 * IDLE_MAX_MS; a write request of the game answered by this instance wakes its worker at once.
 */
/** The longest wait between two polls of an idle game's queue (never shorter than the poll interval). */
export const IDLE_MAX_MS = 60_000

/** What a worker is set up with: the sender address (its game's, read at each send) and the queue's timings. */
export interface WorkerSettings {
  from: string
  maxAttempts: number
  pollIntervalMs: number
  batchSize: number
  /** How long a claim holds (from `claimed_at`); longer than a send can take. */
  leaseMs: number
  backoffBaseMs: number
  backoffMaxMs: number
  /** The longest wait between two polls of an idle queue (IDLE_MAX_MS unless given). */
  idleMaxMs?: number
}

/** What one pass did, by count (lapsed claims taken back, claimed, sent, retried, failed): `runOnce`'s answer. */
export interface PassResult {
  released: number
  claimed: number
  sent: number
  retried: number
  failed: number
}

/** What the worker needs of nodemailer's transporter (tests may hand in their own). */
export interface MailTransport {
  sendMail(message: { from: string; to: string; subject: string; html?: string; text?: string }): Promise<unknown>
  close(): void
}

interface SmtpError {
  code?: string
  responseCode?: number
  response?: string
  message?: string
}

const TRANSIENT_CODES = new Set([
  'ECONNECTION',
  'ETIMEDOUT',
  'ESOCKET',
  'EDNS',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAUTH',
  'ETLS',
])

/**
 * SMTP 4xx and network trouble are worth another try; a 5xx reply is the server's final word. An
 * authentication failure (EAUTH, a 535) is the operator's configuration, not the message's fault:
 * retried, so fixing SMTP_URL in time still delivers.
 */
export function isTransient(error: SmtpError): boolean {
  if (error.code === 'EAUTH') return true
  if (typeof error.responseCode === 'number') return error.responseCode >= 400 && error.responseCode < 500
  return error.code !== undefined && TRANSIENT_CODES.has(error.code)
}

function describe(error: SmtpError): string {
  const detail = error.response ?? error.message ?? 'unknown error'
  const code = error.responseCode ?? error.code
  return (code === undefined ? detail : `${code} ${detail}`).slice(0, 1000)
}

type Candidate = Pick<EmailRow, 'id' | 'attempts' | 'recipient' | 'subject' | 'html' | 'text_body' | 'is_account'>

/** Sends the queue: each pass claims due e-mails under a lease, sends them, and retries transient failures later. */
export class EmailWorker {
  private timer: NodeJS.Timeout | undefined
  private chain: Promise<unknown> = Promise.resolve()
  private stopped = true
  /** Passes in a row that found nothing to send. */
  private empty = 0
  private timedPass = false
  private woken = false
  private readonly outbox: Outbox<'emails'>

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: FastifyBaseLogger,
    private readonly transport: MailTransport | null,
    readonly settings: WorkerSettings,
    /** Told the outcome of every delivery attempt (the metrics count them). */
    private readonly onDelivery: (outcome: 'sent' | 'retried' | 'failed') => void = () => {},
    /** Told of an e-mail that failed for good (`email.failed`), in the transaction that marks it. */
    private readonly events?: EventSender,
  ) {
    this.outbox = new Outbox({
      table: 'emails',
      key: 'id',
      token: 'claim_token',
      lease: { since: 'claimed_at' },
      leaseMs: settings.leaseMs,
      status: 'status',
      attempts: 'attempts',
      dueAt: 'next_attempt_at',
      updatedAt: 'updated_at',
      maxAttempts: settings.maxAttempts,
    })
  }

  /** False when SMTP_URL is empty: nothing is ever sent, `runOnce` does nothing. */
  get enabled(): boolean {
    return this.transport !== null
  }

  /** Wait before the retry that follows attempt `attempt` (1-based): base · 2^(attempt-1), capped. */
  retryDelayMs(attempt: number): number {
    return Math.min(this.settings.backoffMaxMs, this.settings.backoffBaseMs * 2 ** Math.max(0, attempt - 1))
  }

  /** One pass: take back lapsed leases, then claim and deliver up to a batch of due e-mails. Passes of one instance never overlap. */
  runOnce(): Promise<PassResult> {
    const next = this.chain.then(() => this.pass())
    this.chain = next.catch(() => undefined)
    return next
  }

  /** Polling (between `start` and `stop`); never while SMTP_URL is empty. */
  get running(): boolean {
    return this.enabled && !this.stopped
  }

  start(): void {
    if (!this.enabled || !this.stopped) return
    this.stopped = false
    this.schedule(this.settings.pollIntervalMs)
  }

  /** Stops polling and waits for the pass in progress to finish its batch (the shared transport stays open). */
  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    await this.chain
  }

  /** Work may have been queued (a write of the game): an idle worker polls at once, a busy one at its next poll. */
  wake(): void {
    if (this.stopped || !this.enabled) return
    const idle = this.empty >= IDLE_AFTER
    this.empty = 0
    if (!idle) return
    if (this.timedPass) this.woken = true
    else this.schedule(0)
  }

  /** One timer at a time: a wake during a timed pass asks that pass to go on at once when it ends. */
  private schedule(delay: number) {
    clearTimeout(this.timer)
    this.timer = setTimeout(async () => {
      this.timer = undefined
      this.timedPass = true
      let next: number
      try {
        const result = await this.runOnce()
        this.empty = result.claimed > 0 || result.released > 0 ? 0 : this.empty + 1
        // A full batch means more may be due: go on at once rather than after the interval.
        next =
          result.claimed >= this.settings.batchSize
            ? 0
            : idleDelay(this.empty, this.settings.pollIntervalMs, this.settings.idleMaxMs ?? IDLE_MAX_MS)
      } catch (err) {
        this.log.error({ err }, 'e-mail worker pass failed')
        next = this.settings.pollIntervalMs
      }
      this.timedPass = false
      if (this.woken) next = 0
      this.woken = false
      if (!this.stopped) this.schedule(next)
    }, delay)
    this.timer.unref()
  }

  private async pass(): Promise<PassResult> {
    const result: PassResult = { released: 0, claimed: 0, sent: 0, retried: 0, failed: 0 }
    if (!this.transport) return result
    result.released = await this.reclaimLapsed()
    const due = await this.db
      .selectFrom('emails')
      .select(['id', 'attempts', 'recipient', 'subject', 'html', 'text_body', 'is_account'])
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', this.clock.now())
      .orderBy('next_attempt_at')
      .orderBy('id')
      .limit(this.settings.batchSize)
      .execute()
    for (const email of due) {
      const claim = await this.outbox.claim(this.db, { key: email.id, attempts: email.attempts }, this.clock.now())
      if (!claim) continue
      result.claimed++
      const outcome = await this.deliver(email, claim)
      result[outcome]++
      this.onDelivery(outcome)
    }
    return result
  }

  private async deliver(email: Candidate, token: string): Promise<'sent' | 'retried' | 'failed'> {
    const attempt = email.attempts + 1
    // Retried on a deadlock: an e-mail left `processing` after its send would be sent again later.
    const finish = (status: 'sent' | 'failed', values: UpdateObject<Database, 'emails'>) =>
      retryOnConflict(() => this.outbox.finish(this.db, email.id, token, this.clock.now(), status, values))
    try {
      await this.transport!.sendMail({
        from: this.settings.from,
        to: email.recipient,
        subject: email.subject,
        html: email.html ?? undefined,
        text: email.text_body ?? undefined,
      })
    } catch (caught) {
      const error = caught as SmtpError
      const reason = describe(error)
      if (isTransient(error) && attempt < this.settings.maxAttempts) {
        const now = this.clock.now()
        await retryOnConflict(() =>
          this.outbox.retryAt(this.db, email.id, token, now, now + this.retryDelayMs(attempt), {
            error_reason: reason,
          }),
        )
        this.log.warn({ emailId: email.id, attempt, reason }, 'e-mail delivery failed, will retry')
        return 'retried'
      }
      const failed = { processed_at: this.clock.now(), error_reason: reason, ...scrubAccountBody }
      if (this.events?.raising) {
        const events = this.events
        await inTransaction(this.db, async (trx) => {
          if (await this.outbox.finish(trx, email.id, token, this.clock.now(), 'failed', failed)) {
            await events.raise(trx, 'email.failed', {
              emailId: email.id,
              recipient: email.recipient,
              subject: email.subject,
              reason,
              attempts: attempt,
            })
          }
        })
      } else await finish('failed', failed)
      this.log.warn({ emailId: email.id, attempt, reason }, 'e-mail delivery failed for good')
      return 'failed'
    }
    await finish('sent', { processed_at: this.clock.now(), error_reason: null, ...scrubAccountBody })
    return 'sent'
  }

  /**
   * A lapsed lease belongs to a process that died or hung mid-send. Its attempt counts; with attempts
   * left the e-mail is due again at once, else it ends `failed`.
   */
  private reclaimLapsed(): Promise<number> {
    const now = this.clock.now()
    const reason = 'The delivery attempt did not finish in time (claim released)'
    return this.outbox.reclaimLapsed(this.db, now, {
      retry: { error_reason: reason },
      fail: { processed_at: now, error_reason: reason, ...scrubAccountBody },
    })
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The default game's e-mail worker (tests drive it by hand). */
    emailWorker: EmailWorker
    /** Every game's e-mail worker: `emailWorkers.of(game)`. */
    emailWorkers: BackgroundPerGame<EmailWorker>
  }
}

/**
 * One worker per game, each polling its game's queue, made when the games are known and for every
 * game added later; all start with the server (onReady) and stop with it (onClose), finishing the
 * batch in hand, and share one SMTP connection.
 */
export default fp(
  async (app) => {
    const sent = app.metrics.counter('outpost_emails_sent_total')
    const failed = app.metrics.counter('outpost_email_delivery_failures_total')
    const { config } = app
    const transport = config.SMTP_URL
      ? nodemailer.createTransport({
          url: config.SMTP_URL,
          // One reused connection: a pass sends its batch one by one, without a handshake per mail.
          // Every game's worker sends through it; the pool serves waiting sends in the order they came.
          pool: true,
          maxConnections: 1,
          connectionTimeout: 30_000,
          greetingTimeout: 30_000,
          socketTimeout: 60_000,
        })
      : null
    const log = app.log.child({ component: 'email-worker' })
    // Counted under the game whose queue the worker sends.
    const onDelivery = (game: string) => (outcome: 'sent' | 'retried' | 'failed') =>
      outcome === 'sent' ? sent(undefined, game) : failed(outcome === 'retried' ? 'retry' : 'final', game)
    const workers = backgroundPerGame(
      app,
      (game) =>
        new EmailWorker(
          game.db,
          app.clock,
          log.child({ game: game.id }),
          transport,
          {
            // The game's sender, read at each send: its settings may change while the server runs.
            get from() {
              return game.settings.emailFrom
            },
            maxAttempts: config.EMAIL_MAX_ATTEMPTS,
            pollIntervalMs: config.EMAIL_POLL_INTERVAL_MS,
            batchSize: 20,
            // Longer than one SMTP conversation can last with the timeouts above.
            leaseMs: 10 * 60_000,
            backoffBaseMs: 30_000,
            backoffMaxMs: 3600_000,
          },
          onDelivery(game.id),
          app.events,
        ),
      { eager: true, closed: () => transport?.close() },
    )
    app.decorate('emailWorkers', workers)
    app.decorate('emailWorker', {
      getter: () => workers.of(app.games.default),
    })
    // A write this instance answered may have queued e-mails (a sign-up's verification, a send):
    // the game's worker, if idle, polls at once rather than at its next idle poll.
    app.addHook('onResponse', (request, reply, done) => {
      if (request.game && request.method !== 'GET' && request.method !== 'HEAD' && reply.statusCode < 400) {
        workers.live(request.game)?.wake()
      }
      done()
    })
    // Ready (GET /health/ready) only while every game's worker polls, when there is SMTP to deliver to.
    if (transport) {
      app.readiness.add('emailWorker', () =>
        workers.entries().every(([, worker]) => worker.running)
          ? { ok: true, state: 'running' }
          : { ok: false, state: 'stopped' },
      )
    }
    // Summed over the games: the server's queue, as one series per status.
    app.metrics.readGaugeFrom('outpost_email_queue', () => countOverGames(app.games.list(), countEmailsByStatus))
  },
  { name: 'email-worker', dependencies: ['db', 'clock', 'config', 'metrics', 'health', 'events', 'game-registry'] },
)
