// What analytics reads of the e-mail queue: mails waiting, and mails that reached `sent` or `failed`
// in a span of time (index `emails_status_processed_idx`).
import type { Db } from '../../db/types.js'

/** E-mails not yet delivered or given up: pending or being sent. */
export async function emailsQueued(db: Db): Promise<number> {
  const row = await db
    .selectFrom('emails')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', 'in', ['pending', 'processing'])
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}

/** E-mails whose final outcome (`sent` or `failed`) came in [start, end). */
export async function emailOutcomesBetween(db: Db, start: number, end: number) {
  const rows = await db
    .selectFrom('emails')
    .select((eb) => ['status', eb.fn.countAll<number>().as('n')])
    .where('status', 'in', ['sent', 'failed'])
    .where('processed_at', '>=', start)
    .where('processed_at', '<', end)
    .groupBy('status')
    .execute()
  const of = (status: string) => Number(rows.find((r) => r.status === status)?.n ?? 0)
  return { sent: of('sent'), failed: of('failed') }
}
