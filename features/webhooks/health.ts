import type { Selectable } from 'kysely'
import type { Db } from '../../db/types.js'
import type { WebhookEndpointsTable } from './tables.js'
import { toIsoOrNull } from '../../platform/core/clock.js'
import type { WebhookHealth } from './schemas.js'

/**
 * An endpoint's delivery health: kept on its row by the worker, in the transaction that records each
 * attempt (`recordAttemptHealth`), and read with the row, so a list shows it without reading the
 * attempts; what waits to be sent is one grouped count over the page's endpoints (`waitingCounts`).
 */

type Outcome = 'delivered' | 'retry' | 'failed'

/**
 * Called by the worker with the transaction that records an attempt. The failure count is changed in
 * SQL (an increment, or back to 0), so two attempts recorded at once for one endpoint both count.
 */
export async function recordAttemptHealth(
  trx: Db,
  endpointId: string,
  attempt: { outcome: Outcome; responseCode: number | null; at: number },
): Promise<void> {
  const delivered = attempt.outcome === 'delivered'
  await trx
    .updateTable('webhook_endpoints')
    .set((eb) => ({
      last_attempt_at: attempt.at,
      last_outcome: attempt.outcome,
      last_response_code: attempt.responseCode,
      ...(delivered
        ? { last_delivered_at: attempt.at, consecutive_failures: 0 }
        : { consecutive_failures: eb('consecutive_failures', '+', 1) }),
    }))
    .where('id', '=', endpointId)
    .execute()
}

/** Deliveries waiting to be sent or being sent, per endpoint of `ids` (absent: none). */
export async function waitingCounts(db: Db, ids: string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map()
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select(['endpoint_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('status', 'in', ['pending', 'processing'])
    .where('endpoint_id', 'in', ids)
    .groupBy('endpoint_id')
    .execute()
  return new Map(rows.map((row) => [row.endpoint_id, Number(row.n)]))
}

/**
 * `disabled` while the endpoint is off (by an owner, or by a 410), `failing` while its last attempt
 * failed, `untried` before its first attempt, else `healthy`.
 */
export function healthOf(row: Selectable<WebhookEndpointsTable>, waiting: number): WebhookHealth {
  const failures = Number(row.consecutive_failures)
  const lastAttemptAt = row.last_attempt_at === null ? null : Number(row.last_attempt_at)
  return {
    state:
      Number(row.enabled) !== 1
        ? 'disabled'
        : failures > 0
          ? 'failing'
          : lastAttemptAt === null
            ? 'untried'
            : 'healthy',
    lastAttemptAt: toIsoOrNull(lastAttemptAt),
    lastOutcome: row.last_outcome,
    lastResponseCode: row.last_response_code === null ? null : Number(row.last_response_code),
    lastDeliveredAt: toIsoOrNull(row.last_delivered_at === null ? null : Number(row.last_delivered_at)),
    consecutiveFailures: failures,
    waiting,
  }
}
