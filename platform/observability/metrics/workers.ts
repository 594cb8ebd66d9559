import { isIP } from 'node:net'
import { AggregatorRegistry, Gauge, type MetricObjectWithValues, type MetricValue } from 'prom-client'

/**
 * Sums the workers' `metricsJson()` into one exposition (for a node:cluster primary), with
 * `outpost_metrics_workers` saying how many workers answered and how many were left out (a worker
 * that did not answer in time, or was restarting): a sum over fewer workers is labelled as such.
 */
export async function aggregateWorkers(
  perWorker: Array<MetricObjectWithValues<MetricValue<string>>[]>,
  missing = 0,
): Promise<{ contentType: string; text: string }> {
  const registry = AggregatorRegistry.aggregate(perWorker)
  const workers = new Gauge({
    name: 'outpost_metrics_workers',
    help: 'Workers of this instance whose metrics are in this answer (answered) and those left out (missing: no answer in time)',
    labelNames: ['state'] as const,
    registers: [registry],
  })
  workers.set({ state: 'answered' }, perWorker.length)
  workers.set({ state: 'missing' }, missing)
  return { contentType: registry.contentType, text: await registry.metrics() }
}

/** How long a worker answering /metrics waits for the primary's sum over all workers. */
export const INSTANCE_METRICS_TIMEOUT_MS = 3000
/** How long the primary waits for each worker's part of the sum: one that answers later is left out. */
export const WORKER_METRICS_TIMEOUT_MS = 1000

/** A loopback socket address: 127.0.0.0/8 or ::1, also in IPv4-mapped form. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address
  if (isIP(v4) === 4) return v4.startsWith('127.')
  return address === '::1'
}
