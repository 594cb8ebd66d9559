import { createRequire } from 'node:module'
import { Registry } from 'prom-client'

/**
 * prom-client's default process collectors (its `collectDefaultMetrics`), all but one: the GC
 * duration histogram. Its observer turns every collection into a performance entry handled in
 * JavaScript, and on a 1 MB body (many young-generation collections) that measured 13.5 → 20.5 ms of
 * server CPU. prom-client offers no switch for one collector, so they are named here (prom-client is
 * pinned to a minor line for these paths).
 */
const PROCESS_COLLECTORS = [
  'processCpuTotal',
  'processStartTime',
  'osMemoryHeap',
  'processOpenFileDescriptors',
  'processMaxFileDescriptors',
  'eventLoopLag',
  ...(typeof process.getActiveResourcesInfo === 'function' ? ['processResources'] : []),
  'processHandles',
  'processRequests',
  'heapSizeAndUsed',
  'heapSpacesSizeAndUsed',
  'version',
]
type Collector = (registry: Registry, config: { eventLoopMonitoringPrecision: number }) => void
const requireFromHere = createRequire(import.meta.url)

/**
 * Node's process metrics. Made once per process by whoever owns the process (server.ts, a test
 * process) and handed to every app it builds: each collection starts its own event-loop observer.
 */
export function processMetrics(): Registry {
  const registry = new Registry()
  for (const name of PROCESS_COLLECTORS) {
    const collect = requireFromHere(`prom-client/lib/metrics/${name}`) as Collector
    collect(registry, { eventLoopMonitoringPrecision: 10 })
  }
  return registry
}
