import { randomUUID } from 'node:crypto'
import type { Db } from '../../db/types.js'
import type { UserLog } from './tables.js'
import { toIso } from '../../platform/core/clock.js'
import { importRow, type ImportOutcome } from '../../db/import-outcome.js'
import { recordsPage } from '../../platform/http/pagination.js'
import { forExistingUser } from '../../platform/security/session-store.js'
import type { AdminUserLog, UserLogListQuery } from './schemas.js'

/** Player log lines: one row each, erased with the user. The user's foreign key decides whether they exist. */
export async function createLog(
  db: Db,
  input: { userId: string; message: string; type: string; errorCode?: string },
  now: number,
): Promise<{ id: string; createdAt: string }> {
  const id = randomUUID()
  await forExistingUser(
    db
      .insertInto('user_logs')
      .values({
        id,
        user_id: input.userId,
        message: input.message,
        type: input.type,
        error_code: input.errorCode ?? null,
        created_at: now,
      })
      .execute(),
  )
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
  const { items, nextCursor } = await recordsPage(db.selectFrom('user_logs').selectAll(), query, { type: query.type })
  return { items: items.map(toAdminLog), nextCursor }
}

/** A log line brought over from another server with its id: the primary key makes a second import a no-op. */
export async function importLog(
  db: Db,
  row: { id: string; userId: string; message: string; type: string; errorCode: string | null; createdAt: number },
): Promise<ImportOutcome> {
  return importRow(
    db,
    () =>
      db
        .insertInto('user_logs')
        .values({
          id: row.id.toLowerCase(),
          user_id: row.userId.toLowerCase(),
          message: row.message,
          type: row.type,
          error_code: row.errorCode || null,
          created_at: row.createdAt,
        })
        .execute(),
    `user ${row.userId} does not exist`,
  )
}

/** The player's log lines for their data export. */
export async function exportForUser(db: Db, userId: string) {
  const rows = await db
    .selectFrom('user_logs')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id')
    .execute()
  return rows.map(toAdminLog)
}
