// A player's data export (right of access and portability): one document. Each feature adds the
// fields it owns through the event hub (`onUserExport`, in its index.ts), read through its own service.
import type { Db } from '../../db/types.js'
import { sessionsOfUser } from '../../platform/security/session-store.js'
import { toIso } from '../../platform/core/clock.js'
import { notFound } from '../../platform/core/errors.js'
import type { UserExportEvents } from '../../platform/core/events.js'
import type { UserExport } from './schemas.js'
import { exportAccount } from './service.js'

/** A player's data export (GDPR): the account, its sessions and every feature's part, gathered through the event hub. */
export async function exportUser(db: Db, events: UserExportEvents, userId: string, now: number): Promise<UserExport> {
  const account = await exportAccount(db, userId)
  if (!account) throw notFound('USER_NOT_FOUND', 'User not found: check the id with GET /api/v1/admin/users?query=')
  const [sessions, parts] = await Promise.all([sessionsOfUser(db, userId), events.userExport(db, userId)])
  // The response schema names every part: a feature left out of the app fails the answer, not silently.
  return { exportedAt: toIso(now), account, sessions, ...parts } as UserExport
}
