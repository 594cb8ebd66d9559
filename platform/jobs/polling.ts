/**
 * How a worker that polls an outbox (the e-mail and webhook workers, one per game) spaces its polls:
 * at its interval while there is work, and less and less often once its queue was found empty
 * IDLE_AFTER times in a row, so that many idle games cost few statements. Work this instance queues
 * wakes the worker at once (the worker's `wake`); work queued by another instance waits at most the
 * longest idle wait.
 */

/** Empty passes in a row after which a worker polls less often. */
export const IDLE_AFTER = 3

/** The wait before the next poll after `empty` passes in a row found nothing: the interval, then doubling up to `idleMaxMs`. */
export function idleDelay(empty: number, intervalMs: number, idleMaxMs: number): number {
  if (empty < IDLE_AFTER) return intervalMs
  return Math.max(intervalMs, Math.min(idleMaxMs, intervalMs * 2 ** (empty - IDLE_AFTER + 1)))
}
