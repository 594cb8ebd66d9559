import { randomUUID } from 'node:crypto'
import type { Db } from '../../db/index.js'
import type { UserLog } from '../../db/types.js'
import { badRequest } from '../core/errors.js'
import { toIso } from '../core/clock.js'
import { decodeCursor, page } from '../core/pagination.js'
import type { AdminUserLog, UserLogListQuery } from '../../schemas/user-logs.js'

/** Player log lines (API.md §6.5): one row each, erased with the user. */
export async function createLog(
  db: Db,
  input: { userId: string; message: string; type: string; errorCode?: string },
  now: number,
): Promise<{ id: string; createdAt: string }> {
  const id = randomUUID()
  await db
    .insertInto('user_logs')
    .values({ id, user_id: input.userId, message: input.message, type: input.type, error_code: input.errorCode ?? null, created_at: now })
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

/** `from`/`to` as epoch ms; the schema checked the ISO 8601 form, this catches calendar nonsense. */
function instant(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined) return undefined
  const ms = Date.parse(raw)
  if (!Number.isFinite(ms)) throw badRequest(`querystring/${name} must be a valid ISO 8601 date-time`, `/${name}`)
  return ms
}

/** Newest first, filtered by user, type and time range [from, to). */
export async function listLogs(db: Db, query: UserLogListQuery) {
  const after = decodeCursor(query.cursor)
  const from = instant(query.from, 'from')
  const to = instant(query.to, 'to')
  let select = db.selectFrom('user_logs').selectAll()
  if (query.userId !== undefined) select = select.where('user_id', '=', query.userId)
  if (query.type !== undefined) select = select.where('type', '=', query.type)
  if (from !== undefined) select = select.where('created_at', '>=', from)
  if (to !== undefined) select = select.where('created_at', '<', to)
  if (after) {
    select = select.where((eb) =>
      eb.or([eb('created_at', '<', after.at), eb.and([eb('created_at', '=', after.at), eb('id', '<', after.id)])]),
    )
  }
  const rows = await select.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(query.limit + 1).execute()
  const { items, nextCursor } = page(rows, query.limit, (r) => ({ at: Number(r.created_at), id: r.id }))
  return { items: items.map(toAdminLog), nextCursor }
}
