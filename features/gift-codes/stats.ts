// What analytics reads of gift codes: how many codes exist, and redemptions in a span of time
// (index `gift_code_redemptions_time_idx`).
import type { Db } from '../../db/types.js'

/** The all-time count analytics reports beside the counts of a span of time. */
export async function giftCodeTotal(db: Db): Promise<number> {
  const row = await db
    .selectFrom('gift_codes')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}

/** Redemptions made in [start, end). */
export async function redemptionsBetween(db: Db, start: number, end: number): Promise<number> {
  const row = await db
    .selectFrom('gift_code_redemptions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('redeemed_at', '>=', start)
    .where('redeemed_at', '<', end)
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}
