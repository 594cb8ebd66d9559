import { sql } from 'kysely'
import type { Db } from '../../db/types.js'
import type { User } from './tables.js'
import { inTransaction, withTransaction } from '../../db/transaction.js'
import { affected, containsText } from '../../db/dialect.js'
import { notFound } from '../../platform/core/errors.js'
import { toIso, toIsoOrNull } from '../../platform/core/clock.js'
import { keysetPage } from '../../platform/http/pagination.js'
import type { EventSender } from '../../platform/core/events.js'
import { activeSessionCounts, revokeAllSessions } from '../../platform/security/session-store.js'
import type { BannedPlayers } from '../../platform/security/banned-players.js'
import type { AdminUser, LinkedProvider } from './schemas.js'
import { UUID_TEXT } from '../../platform/schemas/common.js'
import { findUser } from './accounts.js'

// ---- operator -------------------------------------------------------------------------------

/** The providers each user signs in with, by user id (one query). */
async function linkedProviders(db: Db, userIds: readonly string[]): Promise<Map<string, LinkedProvider[]>> {
  const byUser = new Map<string, LinkedProvider[]>()
  if (userIds.length === 0) return byUser
  const rows = await db
    .selectFrom('user_identities')
    .selectAll()
    .where('user_id', 'in', [...userIds])
    .orderBy('created_at')
    .orderBy('provider')
    .execute()
  for (const row of rows) {
    const list = byUser.get(row.user_id) ?? []
    list.push({
      provider: row.provider,
      subject: row.subject,
      email: row.email,
      isPrivateRelayEmail: row.is_private_email === 1,
      linkedAt: toIso(row.created_at),
    })
    byUser.set(row.user_id, list)
  }
  return byUser
}

function toAdminUser(user: User, activeSessions: number, providers: LinkedProvider[]): AdminUser {
  return {
    userId: user.id,
    username: user.username,
    displayName: user.username,
    email: user.email,
    isAnonymous: user.is_anonymous === 1,
    isVerified: user.is_verified === 1,
    banned: user.banned_at !== null,
    bannedAt: toIsoOrNull(user.banned_at),
    banReason: user.ban_reason,
    activeSessions,
    linkedProviders: providers,
    createdAt: toIso(user.created_at),
    updatedAt: toIso(user.updated_at),
  }
}

/** One player for the console, with their active session count and linked sign-in providers; 404 when unknown. */
export async function getAdminUser(db: Db, userId: string, now: number): Promise<AdminUser> {
  const user = await findUser(db, userId)
  if (!user) throw notFound('USER_NOT_FOUND', 'User not found')
  const counts = await activeSessionCounts(db, [userId], now)
  const providers = await linkedProviders(db, [userId])
  return toAdminUser(user, counts.get(userId) ?? 0, providers.get(userId) ?? [])
}

/** Newest first; `query` matches an id exactly, or a name or e-mail by substring. */
export async function searchUsers(db: Db, options: { query?: string; limit: number; cursor?: string }, now: number) {
  const query = options.query?.trim()
  let select = db.selectFrom('users').selectAll()
  if (query) {
    if (UUID_TEXT.test(query)) {
      select = select.where('id', '=', query.toLowerCase())
    } else {
      // email_key is lower-cased and compared byte for byte: match it with the lower-cased query.
      select = select.where((eb) =>
        eb.or([
          containsText(db, 'username', query),
          containsText(db, 'email', query),
          containsText(db, 'email_key', query.toLowerCase()),
        ]),
      )
    }
  }
  const { items, nextCursor } = await keysetPage(select, {
    cursor: options.cursor,
    limit: options.limit,
    keys: ['created_at', 'id'],
  })
  const ids = items.map((u) => u.id)
  const counts = await activeSessionCounts(db, ids, now)
  const providers = await linkedProviders(db, ids)
  return {
    items: items.map((u) => toAdminUser(u, counts.get(u.id) ?? 0, providers.get(u.id) ?? [])),
    nextCursor,
  }
}

/**
 * A ban refuses every request the user makes while it lasts; it revokes no session. A ban of a player
 * not banned before raises `player.banned` (pass the admin request's transaction as `db`). The change
 * is told to `bans` in the same transaction: at once here, within a second on every other process.
 */
export async function setBan(
  db: Db,
  bans: BannedPlayers,
  userId: string,
  ban: { reason?: string } | null,
  now: number,
  events?: EventSender,
) {
  return withTransaction(db, async (trx) => {
    if (ban && events?.raising) {
      const banned = await trx
        .updateTable('users')
        .set({ banned_at: now, ban_reason: ban.reason ?? null, updated_at: now })
        .where('id', '=', userId)
        .where('banned_at', 'is', null)
        .executeTakeFirst()
      if (affected(banned) === 1) {
        await bans.changed(trx, userId, true)
        const user = await trx.selectFrom('users').select('username').where('id', '=', userId).executeTakeFirstOrThrow()
        await events.raise(trx, 'player.banned', { userId, playerName: user.username, reason: ban.reason ?? null })
        return getAdminUser(trx, userId, now)
      }
    }
    const result = await trx
      .updateTable('users')
      .set(
        ban
          ? { banned_at: sql<number>`coalesce(banned_at, ${now})`, ban_reason: ban.reason ?? null, updated_at: now }
          : { banned_at: null, ban_reason: null, updated_at: now },
      )
      .where('id', '=', userId)
      .executeTakeFirst()
    if (affected(result) === 0) throw notFound('USER_NOT_FOUND', 'User not found')
    await bans.changed(trx, userId, ban !== null)
    return getAdminUser(trx, userId, now)
  })
}

/**
 * Signs the user out on every device: each session (and its refresh token) is revoked. The account
 * itself is untouched, so the player can sign in again; a ban is what keeps them out.
 */
export async function revokeUserSessions(db: Db, userId: string, now: number): Promise<AdminUser> {
  if (!(await findUser(db, userId))) throw notFound('USER_NOT_FOUND', 'User not found')
  await revokeAllSessions(db, userId, now)
  return getAdminUser(db, userId, now)
}

/**
 * Erases the user and, through ON DELETE CASCADE, every row of theirs in every feature. Features that
 * keep aggregates beside those rows (the leaderboard's count tree), which no cascade can update, hear
 * `userDeleting` first, in the same transaction.
 */
export async function deleteUser(db: Db, events: EventSender, bans: BannedPlayers, userId: string) {
  await inTransaction(db, async (trx) => {
    await events.notifyInTransaction(trx, 'userDeleting', userId)
    const result = await trx.deleteFrom('users').where('id', '=', userId).executeTakeFirst()
    if (affected(result) === 0) throw notFound('USER_NOT_FOUND', 'User not found')
    // A deleted player leaves the banned set (if banned): their requests answer USER_NOT_FOUND.
    await bans.changed(trx, userId, false)
  })
}
