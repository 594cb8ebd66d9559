import fp from 'fastify-plugin'

/**
 * Request and reply over a node:cluster IPC channel, in both directions: a worker asks the primary
 * (a rate-limit counter, the instance's metrics) and the primary asks a worker (its metrics). Every
 * request has a deadline; a reply that comes later is dropped, so a stalled peer never holds a caller
 * longer than it asked to wait.
 *
 * The worker side is decorated as `app.cluster` (null in a single process: `WORKERS=1`, and every
 * test that builds the app in its own process). The primary's side lives in cluster-primary.ts.
 */

/** Every message carries this tag: the IPC channel is shared with Node's own cluster messages. */
const TAG = 'outpost-ipc'

type Envelope =
  | { tag: typeof TAG; type: 'request'; id: number; kind: string; body: unknown }
  | { tag: typeof TAG; type: 'reply'; id: number; body?: unknown; error?: string }

type Handler = (body: any) => unknown

/** A request to the primary that got no answer: a caller tells it apart from the primary's own refusal. */
export class ChannelTimeoutError extends Error {
  constructor(kind: string, timeoutMs: number) {
    super(`no answer to ${kind} within ${timeoutMs} ms`)
    this.name = 'ChannelTimeoutError'
  }
}

/** Request and answer over a worker's IPC link, so workers share what must be counted once (rate limits). */
export class Channel {
  private nextId = 1
  private readonly pending = new Map<
    number,
    { resolve(body: unknown): void; reject(error: Error): void; timer: NodeJS.Timeout }
  >()
  private readonly handlers = new Map<string, Handler>()

  /** `send` writes one message to the peer; its callback says when the write failed (a closed channel). */
  constructor(private readonly send: (message: Envelope, done: (error: Error | null) => void) => void) {}

  /** Answers the peer's requests of this kind with what `handler` returns (or its error's message). */
  handle(kind: string, handler: Handler): void {
    this.handlers.set(kind, handler)
  }

  /** Asks the peer; rejects with ChannelTimeoutError past `timeoutMs`, or at once if the channel is closed. */
  request<T>(kind: string, body: unknown, timeoutMs: number): Promise<T> {
    const id = this.nextId++
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id)
        reject(new ChannelTimeoutError(kind, timeoutMs))
      }, timeoutMs)
      this.pending.set(id, { resolve: resolve as (body: unknown) => void, reject, timer })
      // The write's callback says only whether the message went out: a failed write is the answer.
      this.write({ tag: TAG, type: 'request', id, kind, body }, (error) => error && this.settle(id, undefined, error))
    })
  }

  /** Takes one message from the peer; false when it is not one of ours. */
  receive(message: unknown): boolean {
    if (!isEnvelope(message)) return false
    if (message.type === 'reply') {
      this.settle(message.id, message.body, message.error === undefined ? null : new Error(message.error))
      return true
    }
    const handler = this.handlers.get(message.kind)
    const reply = (body: unknown, error?: string) =>
      this.write({ tag: TAG, type: 'reply', id: message.id, body, ...(error !== undefined && { error }) }, () => {})
    if (!handler) {
      reply(undefined, `nothing handles ${message.kind}`)
      return true
    }
    Promise.resolve()
      .then(() => handler(message.body))
      .then(
        (body) => reply(body),
        (error: Error) => reply(undefined, error.message),
      )
    return true
  }

  /** The peer has gone: every request still waiting fails now rather than at its deadline. */
  close(): void {
    for (const id of [...this.pending.keys()]) this.settle(id, undefined, new Error('the cluster channel closed'))
  }

  private write(message: Envelope, done: (error: Error | null) => void) {
    try {
      this.send(message, done)
    } catch (error) {
      done(error as Error)
    }
  }

  private settle(id: number, body: unknown, error: Error | null) {
    const waiting = this.pending.get(id)
    if (!waiting) return
    this.pending.delete(id)
    clearTimeout(waiting.timer)
    if (error) waiting.reject(error)
    else waiting.resolve(body)
  }
}

function isEnvelope(message: unknown): message is Envelope {
  return typeof message === 'object' && message !== null && (message as { tag?: unknown }).tag === TAG
}

/** A worker's channel to its primary: server.ts makes it once, when the process starts as a worker. */
export function connectToPrimary(): Channel {
  const channel = new Channel((message, done) => {
    if (!process.send) return done(new Error('this process has no cluster primary'))
    process.send(message, undefined, {}, done)
  })
  process.on('message', (message) => channel.receive(message))
  process.on('disconnect', () => channel.close())
  return channel
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The channel to the cluster primary in a worker process; null when the server runs alone. */
    cluster: Channel | null
  }
}

/** Decorates `app.cluster` with the channel the server hands in (server.ts, in a worker). */
export default fp<{ channel?: Channel }>(
  async (app, opts) => {
    app.decorate('cluster', opts.channel ?? null)
  },
  { name: 'cluster' },
)
