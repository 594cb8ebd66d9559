import fp from 'fastify-plugin'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from '@fastify/type-provider-typebox'
import type { Registry } from 'prom-client'
import { errors } from '../../schemas/common.js'
import { AppError, sendError } from '../../core/errors.js'
import { secretChecker } from '../../security/secrets.js'
import { Metrics } from './metrics.js'
import { UNMATCHED_ROUTE } from './families.js'
import { INSTANCE_METRICS_TIMEOUT_MS, isLoopback } from './workers.js'

export { Metrics } from './metrics.js'
export { UNMATCHED_ROUTE, type CacheLookup } from './families.js'
export { processMetrics } from './process.js'
export { aggregateWorkers, INSTANCE_METRICS_TIMEOUT_MS, isLoopback, WORKER_METRICS_TIMEOUT_MS } from './workers.js'

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Metrics
  }
}

export default fp<{ processRegistry?: Registry }>(
  async (app, opts) => {
    const metrics = new Metrics(app.features, opts.processRegistry)
    app.decorate('metrics', metrics)
    const token = app.config.METRICS_TOKEN
    const channel = app.cluster
    const tokenMatches = token ? secretChecker(token) : null

    // A callback hook: an async one would cost every request a promise.
    app.addHook('onResponse', (request, reply, done) => {
      metrics.requestAnswered(
        request.routeOptions.url ?? UNMATCHED_ROUTE,
        request.method,
        reply.statusCode,
        reply.elapsedTime / 1000,
        // The game its key or admin path named; none for a refused key or a public route.
        (request.game as { id: string } | null)?.id ?? '',
      )
      done()
    })

    /**
     * With METRICS_TOKEN, the token from everyone; without it, only a caller on this machine. The
     * socket's own address decides, never X-Forwarded-For: a proxy on the same machine would make
     * every caller look local, so behind one set the token.
     */
    const guard = async (request: FastifyRequest, reply: FastifyReply) => {
      if (tokenMatches) {
        const header = request.headers.authorization
        const presented = typeof header === 'string' && /^bearer /i.test(header) ? header.slice(7).trim() : undefined
        if (!tokenMatches(presented)) {
          reply.header('www-authenticate', 'Bearer')
          return sendError(
            request,
            reply,
            new AppError(401, 'UNAUTHORIZED', 'Send the metrics token as Authorization: Bearer <METRICS_TOKEN>'),
          )
        }
      } else if (!isLoopback(request.socket.remoteAddress)) {
        return sendError(
          request,
          reply,
          new AppError(
            403,
            'FORBIDDEN',
            'Metrics are served only to this machine: set METRICS_TOKEN to scrape them from elsewhere',
          ),
        )
      }
    }

    app.get(
      '/metrics',
      {
        schema: {
          tags: ['Health'],
          summary: 'Prometheus metrics',
          description:
            'Prometheus text format (version 0.0.4): requests by route pattern, method and status with a latency ' +
            'histogram, process metrics, database errors and pool use, the e-mail queue, rate-limit rejections, ' +
            'cache hits and misses, sign-ups, sign-ins, score submits, validated runs and crash reports. With ' +
            'METRICS_TOKEN set, `Authorization: Bearer <METRICS_TOKEN>` is required (401 UNAUTHORIZED without it); ' +
            'without it only callers on the loopback address are answered (403 FORBIDDEN), judged by the socket ' +
            'address, never by X-Forwarded-For. No API key, no rate limit. With WORKERS > 1 the answer is the sum over ' +
            'all workers of the instance; `outpost_metrics_workers` says how many answered and how many were left out.',
          security: [],
          produces: ['text/plain'],
          response: {
            200: Type.String({ description: 'Prometheus text exposition' }),
            ...errors(401, 403),
          },
        },
        config: { public: true, probe: true },
        onRequest: guard,
      },
      async (request, reply) => {
        const text = channel ? await instanceText(request) : await metrics.text()
        return reply.type('text/plain; version=0.0.4; charset=utf-8').send(text)
      },
    )

    /**
     * In a cluster worker, the primary gathers every worker's metrics (this one's included, through
     * the `metrics` handler) and answers their sum. A primary that does not answer in time leaves
     * this worker's own metrics, said in the log: a scrape then sees one worker rather than nothing.
     */
    if (channel) channel.handle('metrics', () => metrics.metricsJson())
    async function instanceText(request: FastifyRequest): Promise<string> {
      try {
        const sum = await channel!.request<{ text: string }>('instance-metrics', null, INSTANCE_METRICS_TIMEOUT_MS)
        return sum.text
      } catch (err) {
        request.log.warn({ err }, "the cluster primary did not sum the metrics: answering this worker's own")
        return metrics.text()
      }
    }
  },
  { name: 'metrics', dependencies: ['config', 'errors', 'surfaces', 'cluster', 'features'] },
)
