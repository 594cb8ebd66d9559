import { randomUUID } from 'node:crypto'
import type { Db } from '../../db/types.js'
import type { UserFeedback } from './tables.js'
import { toIso } from '../../platform/core/clock.js'
import type { EventSender } from '../../platform/core/events.js'
import { withTransaction } from '../../db/transaction.js'
import { importRow, type ImportOutcome } from '../../db/import-outcome.js'
import { recordsPage } from '../../platform/http/pagination.js'
import { forExistingUser } from '../../platform/security/session-store.js'
import { userNames } from '../users/service.js'
import { DEFAULT_CATEGORY, type AdminFeedback, type FeedbackListQuery } from './schemas.js'

/**
 * Player feedback: stored as sent, with the user when one is named, anonymous otherwise; raises
 * `feedback.submitted` in the same transaction. A named user's foreign key decides whether they exist.
 */
export async function submitFeedback(
  db: Db,
  input: {
    userId: string | null
    title: string
    message: string
    category?: string
    email?: string
    deviceInfo?: string
  },
  now: number,
  events?: EventSender,
): Promise<void> {
  const row = {
    id: randomUUID(),
    user_id: input.userId,
    title: input.title,
    message: input.message,
    category: input.category ?? DEFAULT_CATEGORY,
    email: input.email ?? null,
    device_info: input.deviceInfo ?? null,
    created_at: now,
  }
  if (!events?.raising) {
    await forExistingUser(db.insertInto('user_feedback').values(row).execute())
    return
  }
  await withTransaction(db, async (trx) => {
    await forExistingUser(trx.insertInto('user_feedback').values(row).execute())
    // The player's name is read only when a webhook hears the event.
    await events.raise(trx, 'feedback.submitted', async () => ({
      feedbackId: row.id,
      userId: row.user_id,
      playerName: input.userId ? ((await userNames(trx, [input.userId])).get(input.userId) ?? null) : null,
      category: row.category,
      title: row.title,
      message: row.message.slice(0, 1000),
    }))
  })
}

function toFeedback(row: UserFeedback): Omit<AdminFeedback, 'playerName'> {
  return {
    id: row.id,
    userId: row.user_id,
    title: row.title,
    message: row.message,
    category: row.category,
    email: row.email,
    deviceInfo: row.device_info,
    createdAt: toIso(Number(row.created_at)),
  }
}

/** Newest first, filtered by user, category and time range [from, to). */
export async function listFeedback(db: Db, query: FeedbackListQuery) {
  const { items, nextCursor } = await recordsPage(db.selectFrom('user_feedback').selectAll(), query, {
    category: query.category,
  })
  const names = await userNames(
    db,
    items.flatMap((r) => (r.user_id ? [r.user_id] : [])),
  )
  return {
    items: items.map((row): AdminFeedback => ({
      ...toFeedback(row),
      playerName: row.user_id ? (names.get(row.user_id) ?? null) : null,
    })),
    nextCursor,
  }
}

/**
 * Feedback brought over from another server with its id: the primary key makes a second import a
 * no-op. Feedback named a user there; a user unknown here is refused rather than made anonymous.
 */
export async function importFeedback(
  db: Db,
  row: {
    id: string
    userId: string
    title: string
    message: string
    category: string | null
    email: string | null
    deviceInfo: string | null
    createdAt: number
  },
): Promise<ImportOutcome> {
  return importRow(
    db,
    () =>
      db
        .insertInto('user_feedback')
        .values({
          id: row.id.toLowerCase(),
          user_id: row.userId.toLowerCase(),
          title: row.title,
          message: row.message,
          category: row.category || DEFAULT_CATEGORY,
          email: row.email || null,
          device_info: row.deviceInfo || null,
          created_at: row.createdAt,
        })
        .execute(),
    `user ${row.userId} does not exist`,
  )
}

/** The player's feedback for their data export. */
export async function exportForUser(db: Db, userId: string) {
  const rows = await db
    .selectFrom('user_feedback')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id')
    .execute()
  return rows.map(toFeedback)
}
export * from './stats.js'
