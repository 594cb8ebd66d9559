// What analytics reads of validated runs: runs flagged as suspicious that no operator has reviewed yet
// (index `validated_runs_review_idx`).
import type { Db } from '../../db/types.js'

/** Suspicious runs no operator has reviewed, for analytics, so a backlog of them is seen. */
export async function pendingReviews(db: Db): Promise<number> {
  const row = await db
    .selectFrom('validated_runs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('sus', '=', 1)
    .where('review_verdict', 'is', null)
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}
