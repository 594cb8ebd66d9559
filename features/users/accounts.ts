import { randomInt } from 'node:crypto'
import type { Db } from '../../db/types.js'
import type { NewUser, SocialProvider, User, UserIdentity } from './tables.js'
import { affected, isUniqueViolation } from '../../db/dialect.js'
import { prepared, preparedFamily } from '../../db/prepared.js'
import { AppError, badRequest } from '../../platform/core/errors.js'
import type { EventSender } from '../../platform/core/events.js'
import { resolveAccessToken } from '../../platform/security/session-store.js'
import type { CheckAuthResponse } from './schemas.js'

/**
 * The users table is this feature's: creation, names, bans, deletion. Other features read a user
 * through these functions. A user's rows elsewhere reference users.id with ON DELETE CASCADE, so
 * deleting the user erases all their data in one statement.
 */
export const NAME_MAX = 50

/** A name as stored: trimmed, 1–50 characters (the schema already refused control characters). */
export function normalizeName(raw: string, field: string): string {
  const name = raw.trim()
  const length = [...name].length
  if (length < 1 || length > NAME_MAX) {
    throw badRequest(`body/${field} must be 1-${NAME_MAX} characters after trimming`, `/${field}`)
  }
  return name
}

/** The name an anonymous player starts with until they choose one (names need not be unique). */
export function generatedName(): string {
  return `Player-${randomInt(1000, 10000)}`
}

/** Prepared: sign-up is a hot path, so its insert skips Kysely's compile. */
export const insertUser = prepared((db, p: User) =>
  db.insertInto('users').values({
    id: p.id,
    username: p.username,
    email: p.email,
    is_anonymous: p.is_anonymous,
    is_verified: p.is_verified,
    anonymous_token_hash: p.anonymous_token_hash,
    banned_at: p.banned_at,
    ban_reason: p.ban_reason,
    created_at: p.created_at,
    updated_at: p.updated_at,
    password_hash: p.password_hash,
    email_key: p.email_key,
  }),
)

/** Every new player passes here, so every row starts with the same defaults whatever the sign-in way. */
export async function createUser(
  db: Db,
  user: Pick<NewUser, 'id' | 'username' | 'is_anonymous' | 'anonymous_token_hash' | 'created_at'>,
): Promise<User> {
  const row: User = {
    ...user,
    email: null,
    is_verified: 0,
    anonymous_token_hash: user.anonymous_token_hash ?? null,
    banned_at: null,
    ban_reason: null,
    updated_at: user.created_at,
    password_hash: null,
    email_key: null,
  }
  try {
    await insertUser.execute(db, row)
  } catch (error) {
    // The unique key on the token hash settles two sign-ups racing for one client token.
    if (isUniqueViolation(error)) throw new AppError(409, 'CONFLICT', 'This anonymous token is already in use')
    throw error
  }
  return row
}

/** The unique key of an e-mail address: e-mails are unique case-insensitively. */
export const emailKey = (email: string) => email.trim().toLowerCase()

/** An e-mail account: the unique key on `email_key` settles two sign-ups for one address. */
export async function createEmailUser(
  db: Db,
  user: { id: string; username: string; email: string; passwordHash: string; createdAt: number },
): Promise<User> {
  const email = user.email.trim()
  const row: User = {
    id: user.id,
    username: user.username,
    email,
    is_anonymous: 0,
    is_verified: 0,
    anonymous_token_hash: null,
    banned_at: null,
    ban_reason: null,
    created_at: user.createdAt,
    updated_at: user.createdAt,
    password_hash: user.passwordHash,
    email_key: emailKey(email),
  }
  try {
    await db.insertInto('users').values(row).execute()
  } catch (error) {
    if (isUniqueViolation(error))
      throw new AppError(409, 'USER_ALREADY_EXISTS', 'An account with this e-mail already exists')
    throw error
  }
  return row
}

/**
 * A user created by a social sign-in lost a race: the provider subject (another sign-in for the same
 * account committed first) or the e-mail key (another account has the address) was taken. The
 * transaction was rolled back; the caller looks the subject up again to tell the two apart.
 */
export class SocialUserConflict extends Error {
  constructor() {
    super('The provider subject or the e-mail address is already taken')
    this.name = 'SocialUserConflict'
  }
}

/** The user bound to a provider's subject, with the binding. */
export async function findUserBySubject(
  db: Db,
  provider: SocialProvider,
  subject: string,
): Promise<{ user: User; identity: UserIdentity } | undefined> {
  const identity = await db
    .selectFrom('user_identities')
    .selectAll()
    .where('provider', '=', provider)
    .where('subject', '=', subject)
    .executeTakeFirst()
  if (!identity) return undefined
  const user = await findUser(db, identity.user_id)
  return user && { user, identity }
}

/**
 * A user signed up through a provider, bound to its subject, in the caller's transaction. The primary
 * key on (provider, subject) makes one user per subject whatever the concurrency, and the unique
 * e-mail key keeps an address from being taken over silently: either violation is a
 * SocialUserConflict.
 */
export async function createSocialUser(
  trx: Db,
  input: {
    id: string
    username: string
    email: string | null
    provider: SocialProvider
    subject: string
    isPrivateEmail: boolean
    createdAt: number
  },
): Promise<{ user: User; identity: UserIdentity }> {
  const email = input.email?.trim() || null
  const user: User = {
    id: input.id,
    username: input.username,
    email,
    is_anonymous: 0,
    // The provider vouches for the account (and for the address it gave).
    is_verified: 1,
    anonymous_token_hash: null,
    banned_at: null,
    ban_reason: null,
    created_at: input.createdAt,
    updated_at: input.createdAt,
    password_hash: null,
    email_key: email === null ? null : emailKey(email),
  }
  const identity: UserIdentity = {
    provider: input.provider,
    subject: input.subject,
    user_id: input.id,
    email,
    is_private_email: input.isPrivateEmail ? 1 : 0,
    created_at: input.createdAt,
  }
  try {
    await trx.insertInto('users').values(user).execute()
    await trx.insertInto('user_identities').values(identity).execute()
  } catch (error) {
    if (isUniqueViolation(error)) throw new SocialUserConflict()
    throw error
  }
  return { user, identity }
}

/** By the address's normalized key, so case and spacing differences find the same account. */
export async function findUserByEmail(db: Db, email: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('email_key', '=', emailKey(email)).executeTakeFirst()
}

/** A password reset's new hash; the caller hashes outside its transaction (a hash takes a quarter second). */
export async function setPasswordHash(db: Db, userId: string, passwordHash: string, now: number) {
  await db.updateTable('users').set({ password_hash: passwordHash, updated_at: now }).where('id', '=', userId).execute()
}

/**
 * Replaces a password hash by one of the same password with stronger parameters, only while the
 * stored hash is still `from`: a password changed in between (a reset, a concurrent sign-in's
 * upgrade) is never overwritten. True when this call replaced it.
 */
export async function upgradePasswordHash(db: Db, userId: string, from: string, to: string): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ password_hash: to })
    .where('id', '=', userId)
    .where('password_hash', '=', from)
    .executeTakeFirst()
  return affected(result) === 1
}

/** The address is proven: by the mailed verification link, or by a reset mailed to it. */
export async function markVerified(db: Db, userId: string, now: number) {
  await db.updateTable('users').set({ is_verified: 1, updated_at: now }).where('id', '=', userId).execute()
}

/**
 * Locks the user's row for the rest of the caller's transaction: a per-user serialisation point
 * for checks that count rows (the e-mail quota) and must hold across instances. An UPDATE does it
 * on every engine: InnoDB and PostgreSQL take the row's write lock, SQLite its database write lock
 * (a plain SELECT would take neither, and SQLite has no FOR UPDATE). It moves `lock_version` on
 * rather than leaving the row as it was: a Galera cluster replicates the write, not the lock, so two
 * such checks for one player on two nodes conflict there and one of them is run again.
 */
export async function lockUser(trx: Db, userId: string): Promise<void> {
  await trx
    .updateTable('users')
    .set((eb) => ({ lock_version: eb('lock_version', '+', 1) }))
    .where('id', '=', userId)
    .execute()
}

const userById = prepared((db, p: { userId: string }) => db.selectFrom('users').selectAll().where('id', '=', p.userId))

/** Prepared: the session check and many services read a user by id on every request. */
export async function findUser(db: Db, userId: string): Promise<User | undefined> {
  return userById.first(db, { userId })
}

/** Names by id, one statement per list length (a page of leaderboard entries: at most 101). */
const namesOf = preparedFamily(
  (count: number) => (db, ids: readonly string[]) =>
    db
      .selectFrom('users')
      .select(['id', 'username'])
      .where(
        'id',
        'in',
        Array.from({ length: count }, (_, i) => ids[i]!),
      ),
)

/** The names of the given users (one query), for lists that show players, e.g. leaderboard entries. */
export async function userNames(db: Db, userIds: readonly string[]): Promise<Map<string, string>> {
  if (userIds.length === 0) return new Map()
  const ids = [...new Set(userIds)]
  const rows = await namesOf(ids.length).all(db, ids)
  return new Map(rows.map((r) => [r.id, r.username]))
}

/** Anonymous sign-in: the device's token is stored only as its hash. */
export async function findUserByAnonymousTokenHash(db: Db, tokenHash: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('anonymous_token_hash', '=', tokenHash).executeTakeFirst()
}

/** A name change, raising the public-player event so boards and profiles showing the name follow. */
export async function renameUser(
  db: Db,
  events: EventSender,
  userId: string,
  rawName: string,
  now: number,
  field = 'newName',
) {
  const username = normalizeName(rawName, field)
  await db.updateTable('users').set({ username, updated_at: now }).where('id', '=', userId).execute()
  events.notify(db, 'publicPlayerChanged')
  return username
}

/** The one 403 for a banned player, so every sign-in way refuses them alike. */
export function assertNotBanned(user: Pick<User, 'banned_at'>) {
  if (user.banned_at !== null) throw new AppError(403, 'USER_BANNED', 'This account is banned')
}

const MESSAGES: Record<CheckAuthResponse['authStatus'], string> = {
  AUTHENTICATED: 'Session is valid',
  INVALID_TOKEN: 'Session token is invalid',
  TOKEN_EXPIRED: 'Session token has expired',
  USER_NOT_FOUND: 'User not found',
}

/**
 * check-auth: an unknown user first, then the token; a banned user is refused outright. The token is
 * looked up first: its one query joins the session's user, so a session of the user named proves
 * that the user exists (sessions go with their user) and carries the ban; only a missing token or one
 * that is not that user's costs the lookup that tells USER_NOT_FOUND from INVALID_TOKEN.
 */
export async function checkAuth(db: Db, userId: string, token: string | undefined, now: number) {
  const answer = (authStatus: CheckAuthResponse['authStatus']): CheckAuthResponse => ({
    userId,
    isAuthenticated: authStatus === 'AUTHENTICATED',
    authStatus,
    message: MESSAGES[authStatus],
  })
  const session = token ? await resolveAccessToken(db, token, now) : undefined
  if (session?.userId !== userId || session.status === 'UNKNOWN') {
    const user = await db.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst()
    return answer(user ? 'INVALID_TOKEN' : 'USER_NOT_FOUND')
  }
  if (session.status === 'REVOKED') return answer('INVALID_TOKEN')
  if (session.status === 'EXPIRED') return answer('TOKEN_EXPIRED')
  assertNotBanned({ banned_at: session.banned ? now : null })
  return answer('AUTHENTICATED')
}
