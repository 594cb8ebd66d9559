import { randomUUID } from 'node:crypto'
import type { Db, NewSession } from '../../db/types.js'
import { affected, isForeignKeyViolation } from '../../db/dialect.js'
import { prepared } from '../../db/prepared.js'
import { AppError, notFound } from '../core/errors.js'
import { hashToken, randomToken } from './secrets.js'

/**
 * Sessions: bearer access tokens and optional single-use refresh tokens, stored only as SHA-256
 * digests. A user may hold any number at once (one per device). Free of Fastify types: the
 * authentication and users features call these functions.
 */
export interface SessionLifetimes {
  sessionTtlMs: number
  refreshTtlMs: number
}

/** What a new session hands back once: the tokens are stored only as hashes and cannot be read again. */
export interface IssuedSession {
  sessionId: string
  accessToken: string
  expiresAt: number
  refreshToken: string | null
  refreshExpiresAt: number | null
}

const insertSession = prepared((db, p: NewSession) =>
  db.insertInto('sessions').values({
    id: p.id,
    user_id: p.user_id,
    family_id: p.family_id,
    access_hash: p.access_hash,
    expires_at: p.expires_at,
    refresh_hash: p.refresh_hash,
    refresh_expires_at: p.refresh_expires_at,
    refresh_used_at: p.refresh_used_at,
    revoked_at: p.revoked_at,
    created_at: p.created_at,
  }),
)

/** One place makes sessions, so players and their refresh families are issued alike for every sign-in way. */
export async function issueSession(
  db: Db,
  userId: string,
  now: number,
  lifetimes: SessionLifetimes,
  options: { withRefresh: boolean; familyId?: string },
): Promise<IssuedSession> {
  const accessToken = randomToken()
  const refreshToken = options.withRefresh ? randomToken() : null
  const session = {
    id: randomUUID(),
    user_id: userId,
    family_id: options.familyId ?? randomUUID(),
    access_hash: hashToken(accessToken),
    expires_at: now + lifetimes.sessionTtlMs,
    refresh_hash: refreshToken ? hashToken(refreshToken) : null,
    refresh_expires_at: refreshToken ? now + lifetimes.refreshTtlMs : null,
    refresh_used_at: null,
    revoked_at: null,
    created_at: now,
  }
  await insertSession.execute(db, session)
  return {
    sessionId: session.id,
    accessToken,
    expiresAt: session.expires_at,
    refreshToken,
    refreshExpiresAt: session.refresh_expires_at,
  }
}

/** Why a token was refused, told apart so the SDKs can re-authenticate or give up (contract). */
export type SessionStatus = 'VALID' | 'UNKNOWN' | 'EXPIRED' | 'REVOKED'

/** A token looked up: its status, and whose session it is when valid. */
export interface ResolvedSession {
  status: SessionStatus
  sessionId?: string
  userId?: string
  banned?: boolean
}

const sessionByToken = prepared((db, p: { accessHash: string }) =>
  db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select(['s.id', 's.user_id', 's.expires_at', 's.revoked_at', 'u.banned_at'])
    .where('s.access_hash', '=', p.accessHash),
)

/** Looks a presented access token up: one indexed query, joined with the user's ban state. */
export async function resolveAccessToken(db: Db, token: string, now: number): Promise<ResolvedSession> {
  const row = await sessionByToken.first(db, { accessHash: hashToken(token) })
  if (!row) return { status: 'UNKNOWN' }
  const base = { sessionId: row.id, userId: row.user_id, banned: row.banned_at !== null }
  if (row.revoked_at !== null) return { ...base, status: 'REVOKED' }
  if (row.expires_at <= now) return { ...base, status: 'EXPIRED' }
  return { ...base, status: 'VALID' }
}

const banState = prepared((db, p: { userId: string }) =>
  db.selectFrom('users').select('banned_at').where('id', '=', p.userId),
)

/** Whether the user exists and is banned (compat-mode calls that name a user without a session). */
export async function userStanding(db: Db, userId: string): Promise<Standing> {
  return standingOf(await banState.first(db, { userId }))
}

/** A user's standing as the session check needs it: a banned user's valid token is still refused. */
export type Standing = 'UNKNOWN' | 'BANNED' | 'ACTIVE'

/** The standing of a user from their row (absent: undefined), as `userStanding` reads it. */
export const standingOf = (user: { banned_at: number | null } | undefined): Standing =>
  user === undefined ? 'UNKNOWN' : user.banned_at === null ? 'ACTIVE' : 'BANNED'

/** The answers to a request naming a user who does not exist (404) or is banned (403). */
export function assertActive(standing: Standing): void {
  if (standing === 'UNKNOWN') throw notFound('USER_NOT_FOUND', 'User not found')
  if (standing === 'BANNED') throw new AppError(403, 'USER_BANNED', 'This account is banned')
}

/**
 * A write whose foreign key to `users` decides whether the named player exists (contract §1.2): the
 * key refuses the row of a player who does not exist or was deleted, which answers 404 USER_NOT_FOUND.
 * Only for a statement whose one foreign key is the user's, so no other refusal is taken for this one.
 */
export async function forExistingUser<T>(write: Promise<T>): Promise<T> {
  try {
    return await write
  } catch (error) {
    if (isForeignKeyViolation(error)) throw notFound('USER_NOT_FOUND', 'User not found')
    throw error
  }
}

/** Sign-out: the row stays (revoked) so a reused token is told REVOKED rather than UNKNOWN. */
export async function revokeSession(db: Db, sessionId: string, now: number): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ revoked_at: now })
    .where('id', '=', sessionId)
    .where('revoked_at', 'is', null)
    .execute()
}

/** Ends every session of a user (a password reset, an operator signing them out everywhere): a stolen token dies too. */
export async function revokeAllSessions(db: Db, userId: string, now: number): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ revoked_at: now })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute()
}

/** Sessions neither revoked nor expired, per user (users without one are absent). */
export async function activeSessionCounts(
  db: Db,
  userIds: readonly string[],
  now: number,
): Promise<Map<string, number>> {
  if (userIds.length === 0) return new Map()
  const rows = await db
    .selectFrom('sessions')
    .select(['user_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('user_id', 'in', userIds)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .groupBy('user_id')
    .execute()
  return new Map(rows.map((r) => [r.user_id, Number(r.n)]))
}

/** A refresh either wins the token (the user and the family to continue) or loses it to a concurrent use. */
export type RefreshOutcome = { ok: true; userId: string; familyId: string } | { ok: false }

/**
 * Spends a refresh token. The conditional UPDATE decides: of any number of concurrent uses exactly
 * one matches the row, and it also retires the session the token belonged to. A token that was
 * already spent is a replay (stolen token or a confused client): the whole family is revoked.
 */
export async function spendRefreshToken(db: Db, refreshToken: string, now: number): Promise<RefreshOutcome> {
  const refreshHash = hashToken(refreshToken)
  const row = await db
    .selectFrom('sessions')
    .select(['user_id', 'family_id'])
    .where('refresh_hash', '=', refreshHash)
    .executeTakeFirst()
  if (!row) return { ok: false }
  const spent = await db
    .updateTable('sessions')
    .set({ refresh_used_at: now, revoked_at: now })
    .where('refresh_hash', '=', refreshHash)
    .where('refresh_used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('refresh_expires_at', '>', now)
    .executeTakeFirst()
  if (affected(spent) === 1) return { ok: true, userId: row.user_id, familyId: row.family_id }
  const replayed = await db
    .selectFrom('sessions')
    .select('id')
    .where('refresh_hash', '=', refreshHash)
    .where('refresh_used_at', 'is not', null)
    .executeTakeFirst()
  if (replayed) {
    await db
      .updateTable('sessions')
      .set({ revoked_at: now })
      .where('family_id', '=', row.family_id)
      .where('revoked_at', 'is', null)
      .execute()
  }
  return { ok: false }
}

/** A user's sessions for their data export: when and until when, never the token digests. */
export async function sessionsOfUser(db: Db, userId: string) {
  const rows = await db
    .selectFrom('sessions')
    .select(['id', 'family_id', 'created_at', 'expires_at', 'refresh_expires_at', 'refresh_used_at', 'revoked_at'])
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id')
    .execute()
  const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString())
  return rows.map((r) => ({
    sessionId: r.id,
    familyId: r.family_id,
    createdAt: iso(r.created_at)!,
    expiresAt: iso(r.expires_at)!,
    refreshExpiresAt: iso(r.refresh_expires_at),
    refreshUsedAt: iso(r.refresh_used_at),
    revokedAt: iso(r.revoked_at),
  }))
}
