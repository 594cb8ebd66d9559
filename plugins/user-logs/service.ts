import { randomUUID } from 'node:crypto'
import type { Db, UserLog } from '../../db/types.js'
import { parseIsoTime, toIso } from '../core/clock.js'
import { keysetPage } from '../core/pagination.js'
import type { AdminUserLog, UserLogListQuery } from '../../schemas/user-logs.js'

/** Player log lines: one row each, erased with the user. */
export async function createLog(
  db: Db,
  input: { userId: string; message: string; type: string; errorCode?: string },
  now: number,
): Promise<{ id: string; createdAt: string }> {
  const id = randomUUID()
  await db
    .insertInto('user_logs')
    .values({
      id,
      user_id: input.userId,
      message: input.message,
      type: input.type,
      error_code: input.errorCode ?? null,
      created_at: now,
    })
    .execute()
  return { id, createdAt: toIso(now) }
}

function toAdminLog(row: UserLog): AdminUserLog {
  return {
    id: row.id,
    userId: row.user_id,
    message: row.message,
    type: row.type,
    errorCode: row.error_code,
    createdAt: toIso(Number(row.created_at)),
  }
}

/** Newest first, filtered by user, type and time range [from, to). */
export async function listLogs(db: Db, query: UserLogListQuery) {
  const from = parseIsoTime(query.from, 'querystring/from')
  const to = parseIsoTime(query.to, 'querystring/to')
  let select = db.selectFrom('user_logs').selectAll()
  if (query.userId !== undefined) select = select.where('user_id', '=', query.userId)
  if (query.type !== undefined) select = select.where('type', '=', query.type)
  if (from !== undefined) select = select.where('created_at', '>=', from)
  if (to !== undefined) select = select.where('created_at', '<', to)
  const { items, nextCursor } = await keysetPage(select, {
    cursor: query.cursor,
    limit: query.limit,
    keys: ['created_at', 'id'],
  })
  return { items: items.map(toAdminLog), nextCursor }
}
