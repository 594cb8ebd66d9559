// What other features may ask analytics (ARCHITECTURE.md, "Boundaries and rules").
import type { Db } from '../../db/types.js'
import { dayOf } from './days.js'

/**
 * The players with an activity mark today (UTC), one COUNT over the day's primary-key range. Marks
 * are written in batches (activity.ts): the last few seconds' may be missing.
 */
export async function activeToday(db: Db, now: number): Promise<number> {
  const row = await db
    .selectFrom('player_activity')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('day', '=', dayOf(now))
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}
