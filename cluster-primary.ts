import cluster, { type Worker } from 'node:cluster'
import type { Logger } from 'pino'
import { Channel } from './platform/cluster/cluster.js'
import { aggregateWorkers, WORKER_METRICS_TIMEOUT_MS } from './platform/observability/metrics/index.js'
import { answerBatch, BUCKET_KEYS, MemoryBuckets } from './platform/security/token-bucket.js'

/**
 * The cluster primary (WORKERS > 1): it serves no request itself. It forks the workers (node:cluster
 * shares the listening port between them), replaces a worker that dies, keeps what the workers of
 * one instance must share (the rate-limit counters when there is no Redis) and sums their metrics
 * for /metrics. Migrations are run by the caller before `runPrimary`, so they run once.
 */

/** A worker that dies is replaced after this wait, doubled for each death in a row, up to the max. */
const RESTART_DELAY_MS = 250
const RESTART_DELAY_MAX_MS = 30_000
/** A worker that ran this long was healthy: the next death starts the back-off again. */
const HEALTHY_AFTER_MS = 30_000
/** How long the workers have to finish in-flight requests on shutdown (their own bound is 10 s). */
const SHUTDOWN_WAIT_MS = 15_000

export interface PrimaryOptions {
  workers: number
  log: Logger
  /** Settings every worker gets on top of the primary's environment (the port picked for PORT=0). */
  env?: Record<string, string>
}

export interface RunningPrimary {
  /** The port the workers share (for PORT=0, the free one the primary picked). */
  port: number
}

/** Forks the workers and resolves when every one listens; rejects if one dies before it does. */
export function runPrimary({ workers, log, env }: PrimaryOptions): Promise<RunningPrimary> {
  const channels = new Map<Worker, Channel>()
  /** When each worker began to listen (a worker still starting has no entry). */
  const listeningSince = new Map<Worker, number>()
  // The rate limits' buckets, kept as one process keeps its own (token-bucket.ts): the same answers.
  const takeTokens = answerBatch(new MemoryBuckets(BUCKET_KEYS))
  let stopping = false
  let started = false
  let deathsInARow = 0

  /** Every worker's metrics, summed; a worker that is restarting or does not answer in time is left out. */
  async function instanceMetrics(): Promise<{ text: string }> {
    const parts = await Promise.allSettled(
      [...channels.values()].map((channel) =>
        channel.request<Parameters<typeof aggregateWorkers>[0][number]>('metrics', null, WORKER_METRICS_TIMEOUT_MS),
      ),
    )
    const answered = parts.flatMap((part) => (part.status === 'fulfilled' ? [part.value] : []))
    const missing = workers - answered.length
    if (missing > 0) log.warn({ missing, workers }, 'metrics summed without the workers that did not answer in time')
    const { text } = await aggregateWorkers(answered, missing)
    return { text }
  }

  function fork(): Worker {
    const worker = cluster.fork(env)
    const channel = new Channel((message, done) => {
      worker.send(message, undefined, {}, done)
    })
    // A worker's batch of tokens to take (rate-limit.ts), answered in order.
    channel.handle('rate-limit', takeTokens)
    channel.handle('instance-metrics', instanceMetrics)
    worker.on('message', (message) => channel.receive(message))
    channels.set(worker, channel)
    return worker
  }

  return new Promise((resolve, reject) => {
    let listening = 0
    cluster.on('listening', (worker, address) => {
      listeningSince.set(worker, Date.now())
      log.info({ worker: worker.process.pid }, 'worker listening')
      if (!started && ++listening === workers) {
        started = true
        resolve({ port: address.port })
      }
    })
    cluster.on('exit', (worker, code, signal) => {
      channels.get(worker)?.close()
      channels.delete(worker)
      if (stopping) return
      if (!started) {
        // A worker that cannot start (the port taken, the database unreachable) will not start on a
        // second try either: stop the others and say so.
        stopping = true
        for (const other of cluster.workers ? Object.values(cluster.workers) : []) other?.process.kill('SIGTERM')
        reject(new Error(`a worker exited during the start (code ${code ?? '-'}, signal ${signal ?? '-'})`))
        return
      }
      const ranMs = Date.now() - (listeningSince.get(worker) ?? Date.now())
      listeningSince.delete(worker)
      deathsInARow = ranMs >= HEALTHY_AFTER_MS ? 1 : deathsInARow + 1
      const delay = Math.min(RESTART_DELAY_MAX_MS, RESTART_DELAY_MS * 2 ** (deathsInARow - 1))
      log.error(
        { worker: worker.process.pid, code, signal, restartInMs: delay },
        'worker died unexpectedly: starting a new one',
      )
      // Not unref'd: when every worker has died, this timer is what keeps the primary alive to restart them.
      setTimeout(() => {
        if (!stopping) fork()
      }, delay)
    })

    /**
     * SIGTERM or SIGINT: each worker is asked to stop accepting and finish its requests (close-with-grace
     * in the worker); the primary exits once they all have, or kills what is left after SHUTDOWN_WAIT_MS.
     */
    const shutdown = (signal: NodeJS.Signals) => {
      if (stopping) return
      stopping = true
      log.info({ signal }, 'shutting down the workers')
      for (const [worker, channel] of channels) {
        // A worker still starting may not listen to its channel yet: a signal reaches it either way
        // (before it has installed its shutdown it just ends; it has served nothing yet).
        if (!listeningSince.has(worker)) worker.process.kill('SIGTERM')
        else channel.request('shutdown', null, SHUTDOWN_WAIT_MS).catch(() => {})
      }
      const deadline = setTimeout(() => {
        log.error('workers still running after the shutdown wait: killing them')
        for (const worker of channels.keys()) worker.process.kill('SIGKILL')
        process.exit(1)
      }, SHUTDOWN_WAIT_MS)
      deadline.unref()
      const exitWhenDone = () => {
        if (channels.size === 0) process.exit(0)
      }
      cluster.on('exit', exitWhenDone)
      exitWhenDone()
    }
    process.on('SIGTERM', shutdown)
    process.on('SIGINT', shutdown)

    for (let i = 0; i < workers; i++) fork()
  })
}
