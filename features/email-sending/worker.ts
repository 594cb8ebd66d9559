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
import { countEmailsByStatus, scrubAccountBody } from './service.js'

/**
 * The delivery worker: runs inside every server process, polls for due e-mails and sends them over
 * SMTP. Each e-mail is claimed from the outbox (platform/jobs/outbox.ts) by a conditional UPDATE
 * (pending → processing under a lease), so however many instances poll one database, one of them
 * sends it. Transient failures (SMTP 4xx, connection errors) go back to pending with exponential
 * backoff until EMAIL_MAX_ATTEMPTS; permanent ones (SMTP 5xx) end `failed` with the reason. A lease
 * that lapsed (a process died mid-send) is taken back, so nothing stays `processing` forever.
 */
export interface WorkerSettings {
  from: string
  maxAttempts: number
  pollIntervalMs: number
  batchSize: number
  /** How long a claim holds (from `claimed_at`); longer than a send can take. */
  leaseMs: number
  backoffBaseMs: number
  backoffMaxMs: number
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

  /** Stops polling and waits for the pass in progress to finish its batch. */
  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    await this.chain
    this.transport?.close()
  }

  private schedule(delay: number) {
    this.timer = setTimeout(async () => {
      let next = this.settings.pollIntervalMs
      try {
        const result = await this.runOnce()
        // A full batch means more may be due: go on at once rather than after the interval.
        if (result.claimed >= this.settings.batchSize) next = 0
      } catch (err) {
        this.log.error({ err }, 'e-mail worker pass failed')
      }
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
    emailWorker: EmailWorker
  }
}

/** Starts with the server (onReady) and stops with it (onClose), finishing the batch in hand. */
export default fp(
  async (app) => {
    const sent = app.metrics.counter('outpost_emails_sent_total')
    const failed = app.metrics.counter('outpost_email_delivery_failures_total')
    const { config } = app
    const transport = config.SMTP_URL
      ? nodemailer.createTransport({
          url: config.SMTP_URL,
          // One reused connection: a pass sends its batch one by one, without a handshake per mail.
          pool: true,
          maxConnections: 1,
          connectionTimeout: 30_000,
          greetingTimeout: 30_000,
          socketTimeout: 60_000,
        })
      : null
    const worker = new EmailWorker(
      app.db,
      app.clock,
      app.log.child({ component: 'email-worker' }),
      transport,
      {
        from: config.EMAIL_FROM,
        maxAttempts: config.EMAIL_MAX_ATTEMPTS,
        pollIntervalMs: config.EMAIL_POLL_INTERVAL_MS,
        batchSize: 20,
        // Longer than one SMTP conversation can last with the timeouts above.
        leaseMs: 10 * 60_000,
        backoffBaseMs: 30_000,
        backoffMaxMs: 3600_000,
      },
      // The worker sends the `default` game's queue (app.db): its counts are that game's.
      (outcome) =>
        outcome === 'sent'
          ? sent(undefined, app.games.default.id)
          : failed(outcome === 'retried' ? 'retry' : 'final', app.games.default.id),
      app.events,
    )
    app.decorate('emailWorker', worker)
    // Ready (GET /health/ready) only while the worker polls, when there is SMTP to deliver to.
    if (worker.enabled) {
      app.readiness.add('emailWorker', () =>
        worker.running ? { ok: true, state: 'running' } : { ok: false, state: 'stopped' },
      )
    }
    app.metrics.readGaugeFrom('outpost_email_queue', () => countEmailsByStatus(app.db))
    app.addHook('onReady', async () => worker.start())
    app.addHook('onClose', async () => worker.stop())
  },
  { name: 'email-worker', dependencies: ['db', 'clock', 'config', 'metrics', 'health', 'events'] },
)
