// What analytics reads of cloud saves: how many players have one.
import type { Db } from '../../db/types.js'

/** How many players keep a save, for analytics: one row per player, so a count of rows. */
export async function saveTotal(db: Db): Promise<number> {
  const row = await db
    .selectFrom('cloud_saves')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}
