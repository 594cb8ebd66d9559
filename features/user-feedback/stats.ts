// What analytics reads of feedback: the total, and what arrived in a span of time (index `user_feedback_created_idx`).
import type { Db } from '../../db/types.js'

/** The all-time count analytics reports beside the counts of a span of time. */
export async function feedbackTotal(db: Db): Promise<number> {
  const row = await db
    .selectFrom('user_feedback')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}

/** Feedback received in [start, end). */
export async function feedbackBetween(db: Db, start: number, end: number): Promise<number> {
  const row = await db
    .selectFrom('user_feedback')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('created_at', '>=', start)
    .where('created_at', '<', end)
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}
