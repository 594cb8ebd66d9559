import { randomUUID } from 'node:crypto'
import type { Db, UserFeedback } from '../../db/types.js'
import { parseIsoTime, toIso } from '../core/clock.js'
import { keysetPage } from '../core/pagination.js'
import { DEFAULT_CATEGORY, type AdminFeedback, type FeedbackListQuery } from '../../schemas/user-feedback.js'

/** Player feedback: stored as sent, with the user when one is named, anonymous otherwise. */
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
): Promise<void> {
  await db
    .insertInto('user_feedback')
    .values({
      id: randomUUID(),
      user_id: input.userId,
      title: input.title,
      message: input.message,
      category: input.category ?? DEFAULT_CATEGORY,
      email: input.email ?? null,
      device_info: input.deviceInfo ?? null,
      created_at: now,
    })
    .execute()
}

function toAdminFeedback(row: UserFeedback): AdminFeedback {
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
  const from = parseIsoTime(query.from, 'querystring/from')
  const to = parseIsoTime(query.to, 'querystring/to')
  let select = db.selectFrom('user_feedback').selectAll()
  if (query.userId !== undefined) select = select.where('user_id', '=', query.userId)
  if (query.category !== undefined) select = select.where('category', '=', query.category)
  if (from !== undefined) select = select.where('created_at', '>=', from)
  if (to !== undefined) select = select.where('created_at', '<', to)
  const { items, nextCursor } = await keysetPage(select, {
    cursor: query.cursor,
    limit: query.limit,
    keys: ['created_at', 'id'],
  })
  return { items: items.map(toAdminFeedback), nextCursor }
}
