import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import type { Db, OperatorRole } from '../../db/types.js'
import { affected, isUniqueViolation } from '../../db/dialect.js'
import { bumpChangeCounter } from '../../db/change-counters.js'
import { withTransaction } from '../../db/transaction.js'
import { AppError, notFound } from '../../platform/core/errors.js'
import { hashToken } from '../../platform/security/secrets.js'
import { recordAudit } from '../../platform/security/audit.js'
import { SIGN_IN_LOCKOUT } from '../../platform/security/login-lockout.js'
import { toIso } from '../../platform/core/clock.js'

/** A console session ends after 2 h without a request, and 24 h after sign-in whatever happens. */
export const SESSION_IDLE_MS = 2 * 3600 * 1000
/** An absolute end, so a session kept alive by a script still has to sign in again daily. */
export const SESSION_MAX_MS = 24 * 3600 * 1000
/** A session's last use is written at most this often (a read per request, a write per minute). */
const TOUCH_EVERY_MS = 60 * 1000
/** Failed sign-ins for one name within the window that lock it (further attempts: 429). */
export const MAX_SIGN_IN_FAILURES = SIGN_IN_LOCKOUT.maxFailures
/** The operators' lockout window (SIGN_IN_LOCKOUT's), named for the sweep and the tests. */
export const SIGN_IN_WINDOW_MS = SIGN_IN_LOCKOUT.windowMs
/** The period every authenticator app uses by default (RFC 6238). */
export const TOTP_PERIOD_SECONDS = 30
/** Operator names: plain enough to type on the command line (npm run operator) and to sign in with. */
export const USERNAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$'
/** Operators guard every player's data: a longer minimum than players get. */
export const PASSWORD_MIN = 12
/** A bound on what the hash is fed, so a huge body cannot cost a long derivation. */
export const PASSWORD_MAX = 1024
/** The audit log's actor for calls made with the admin key rather than an operator's session. */
export const ADMIN_KEY_ACTOR = 'admin-key'

/** A non-owner's role in each game it holds one in (contract §14). */
export type GameRoles = Record<string, 'moderator' | 'viewer'>

/** An operator as the admin API shows one: never the password hash or the TOTP secret. */
export interface Operator {
  username: string
  role: OperatorRole
  /** A non-owner's roles per game; null for an owner, who holds every game. */
  roles: GameRoles | null
  totpEnabled: boolean
  createdAt: string
  updatedAt: string
}

interface OperatorRow {
  id: string
  username: string
  role: OperatorRole
  roles: string | null
  totp_secret: string | null
  created_at: number
  updated_at: number
}

/** Names are unique case-insensitively: kept lower-cased. */
export const normalizeUsername = (name: string) => name.trim().toLowerCase()

/** Who did it, for the audit entries the service writes itself (sign-in, the command line). */
export interface AuditContext {
  actor: string
  role: string | null
  address: string
  requestId: string
  now: number
}

/**
 * An operator's roles per game: null for an owner; a row written before games held its role in
 * `default` (the migration wrote that down, this reads it so for any row it missed).
 */
export function rolesOf(row: { role: OperatorRole; roles: string | null }): GameRoles | null {
  if (row.role === 'owner') return null
  return row.roles === null ? { default: row.role } : (JSON.parse(row.roles) as GameRoles)
}

/** What the `roles` column holds for a role and the roles given: without them, the role in `default`. */
function storedRoles(role: OperatorRole, roles: GameRoles | undefined): string | null {
  if (role === 'owner') return null
  return JSON.stringify(roles ?? { default: role })
}

const present = (row: OperatorRow): Operator => ({
  username: row.username,
  role: row.role,
  roles: rolesOf(row),
  totpEnabled: row.totp_secret !== null,
  createdAt: toIso(Number(row.created_at)),
  updatedAt: toIso(Number(row.updated_at)),
})

const COLUMNS = ['id', 'username', 'role', 'roles', 'totp_secret', 'created_at', 'updated_at'] as const

/** The 404 for an unknown name, saying how to list the names. */
export const operatorNotFound = (username: string) =>
  notFound('NOT_FOUND', `No operator is named ${username}: list them with GET /api/v1/admin/operators`)

/** Whether anyone can sign in to the console: with no operator, the start logs how to make the first. */
export async function anyOperator(db: Db): Promise<boolean> {
  return (await db.selectFrom('operators').select('id').limit(1).executeTakeFirst()) !== undefined
}

/** The operators by name, for the console's operators page. */
export async function listOperators(db: Db): Promise<Operator[]> {
  const rows = await db.selectFrom('operators').select(COLUMNS).orderBy('username').execute()
  return rows.map(present)
}

/** By the normalized name, so a name's case does not make a second account. */
export async function findOperator(db: Db, username: string) {
  return db.selectFrom('operators').selectAll().where('username', '=', normalizeUsername(username)).executeTakeFirst()
}

/**
 * `passwordHash` is made by the caller (hashPassword), outside any transaction: it takes a quarter
 * second. A non-owner holds `roles` (by default its role in `default`); an owner holds every game.
 */
export async function createOperator(
  db: Db,
  input: { username: string; passwordHash: string; role: OperatorRole; roles?: GameRoles },
  now: number,
): Promise<Operator> {
  const row = {
    id: randomUUID(),
    username: normalizeUsername(input.username),
    password_hash: input.passwordHash,
    role: input.role,
    roles: storedRoles(input.role, input.roles),
    totp_secret: null,
    totp_pending_secret: null,
    totp_last_step: null,
    created_at: now,
    updated_at: now,
  }
  try {
    await db.insertInto('operators').values(row).execute()
  } catch (error) {
    if (isUniqueViolation(error))
      throw new AppError(409, 'CONFLICT', `An operator named ${row.username} exists already: pick another name`)
    throw error
  }
  return present(row)
}

/**
 * The owners counted inside the statement that changes one. A derived table, because MySQL refuses a
 * subquery on the table an UPDATE or DELETE changes unless it is materialized first.
 */
const ownerCount = (db: Db) =>
  db
    .selectFrom(db.selectFrom('operators').select('id').where('role', '=', 'owner').as('owners'))
    .select(sql<number>`count(*)`.as('n'))

/**
 * Orders the changes that may take an owner away: two owners demoting or removing each other at once
 * must not both pass the count, which is over rows neither writes. Each such change first writes one
 * guard row, the operators' change counter: on one server its write lock orders them (the second then
 * counts one owner and changes nothing); on a Galera cluster, which replicates writes but not row
 * locks, two such changes on two nodes both wrote it, so the cluster lets one commit and aborts the
 * other, which is run again (withTransaction) and then counts one owner.
 */
async function guardOwners(trx: Db): Promise<void> {
  await bumpChangeCounter(trx, 'operators')
}

const lastOwner = () => new AppError(409, 'LAST_OWNER', 'This is the last owner: make another operator an owner first')

/**
 * Changes a role, and a non-owner's roles per game (without them: the role in `default`); the last
 * owner cannot be demoted (settled by one conditional UPDATE after the owners' guard).
 */
export async function setRole(
  db: Db,
  username: string,
  role: OperatorRole,
  now: number,
  roles?: GameRoles,
): Promise<Operator> {
  const name = normalizeUsername(username)
  const stored = storedRoles(role, roles)
  return withTransaction(db, async (trx) => {
    await guardOwners(trx)
    let update = trx.updateTable('operators').set({ role, roles: stored, updated_at: now }).where('username', '=', name)
    if (role !== 'owner') {
      update = update.where((eb) => eb.or([eb('role', '!=', 'owner'), eb(ownerCount(trx), '>', 1)]))
    }
    const changed = affected(await update.executeTakeFirst())
    const row = await trx.selectFrom('operators').select(COLUMNS).where('username', '=', name).executeTakeFirst()
    if (!row) throw operatorNotFound(name)
    // MySQL counts a row whose values did not change as not affected: the role is then already right.
    if (changed === 0 && (row.role !== role || row.roles !== stored)) throw lastOwner()
    return present(row)
  })
}

/** Removes an operator and their sessions; the last owner cannot be removed. */
export async function removeOperator(db: Db, username: string): Promise<void> {
  const name = normalizeUsername(username)
  await withTransaction(db, async (trx) => {
    await guardOwners(trx)
    const row = await trx.selectFrom('operators').select('id').where('username', '=', name).executeTakeFirst()
    if (!row) throw operatorNotFound(name)
    await trx.deleteFrom('operator_sessions').where('operator_id', '=', row.id).execute()
    const removed = await trx
      .deleteFrom('operators')
      .where('id', '=', row.id)
      .where((eb) => eb.or([eb('role', '!=', 'owner'), eb(ownerCount(trx), '>', 1)]))
      .executeTakeFirst()
    if (affected(removed) === 0) throw lastOwner()
  })
}

/** Signs an operator out everywhere; returns how many sessions ended. */
export async function revokeSessions(db: Db, username: string): Promise<number> {
  const row = await findOperator(db, username)
  if (!row) throw operatorNotFound(normalizeUsername(username))
  return affected(await db.deleteFrom('operator_sessions').where('operator_id', '=', row.id).executeTakeFirst())
}

/**
 * Sets a new password (hashed by the caller). `keepSessionId` survives (the operator who changed
 * their own password stays signed in); every other session of the operator ends. `expectedHash`,
 * when given, makes the change conditional on the password not having changed since it was checked.
 */
export async function setPassword(
  db: Db,
  username: string,
  passwordHash: string,
  now: number,
  options: { keepSessionId?: string; expectedHash?: string } = {},
): Promise<void> {
  const name = normalizeUsername(username)
  await withTransaction(db, async (trx) => {
    let update = trx
      .updateTable('operators')
      .set({ password_hash: passwordHash, updated_at: now })
      .where('username', '=', name)
    if (options.expectedHash) update = update.where('password_hash', '=', options.expectedHash)
    if (affected(await update.executeTakeFirst()) === 0) {
      if (options.expectedHash)
        throw new AppError(409, 'CONFLICT', 'The password was changed meanwhile: sign in again and retry')
      throw operatorNotFound(name)
    }
    const row = await trx.selectFrom('operators').select('id').where('username', '=', name).executeTakeFirstOrThrow()
    let revoke = trx.deleteFrom('operator_sessions').where('operator_id', '=', row.id)
    if (options.keepSessionId) revoke = revoke.where('id', '!=', options.keepSessionId)
    await revoke.execute()
  })
}

/**
 * Turns the second factor off (the command line's reset-totp): the operator signs in with a password
 * alone. Their sessions end with it, as with any change of the factor.
 */
export async function resetTotp(db: Db, username: string, now: number): Promise<void> {
  const name = normalizeUsername(username)
  await withTransaction(db, async (trx) => {
    const result = await trx
      .updateTable('operators')
      .set({ totp_secret: null, totp_pending_secret: null, totp_last_step: null, updated_at: now })
      .where('username', '=', name)
      .executeTakeFirst()
    if (affected(result) === 0) throw operatorNotFound(name)
    const row = await trx.selectFrom('operators').select('id').where('username', '=', name).executeTakeFirstOrThrow()
    await trx.deleteFrom('operator_sessions').where('operator_id', '=', row.id).execute()
  })
}

/** The operator a session token belongs to while it is alive (idle under 2 h, under 24 h old). */
export async function resolveSession(db: Db, token: string, now: number) {
  const row = await db
    .selectFrom('operator_sessions as s')
    .innerJoin('operators as o', 'o.id', 's.operator_id')
    .select([
      's.id as sessionId',
      's.operator_id as operatorId',
      's.last_seen_at',
      's.expires_at',
      'o.username',
      'o.role',
      'o.roles',
    ])
    .where('s.token_hash', '=', hashToken(token))
    .executeTakeFirst()
  if (!row || Number(row.expires_at) <= now || Number(row.last_seen_at) <= now - SESSION_IDLE_MS) return null
  if (Number(row.last_seen_at) < now - TOUCH_EVERY_MS) {
    await db
      .updateTable('operator_sessions')
      .set({ last_seen_at: now })
      .where('id', '=', row.sessionId)
      .where('last_seen_at', '<', now)
      .execute()
  }
  const roles = rolesOf(row)
  return {
    sessionId: row.sessionId,
    operatorId: row.operatorId,
    username: row.username,
    role: row.role,
    ...(roles && { roles }),
  }
}

/** Sign-out: the row is deleted, so the cookie is worthless at once. */
export async function endSession(db: Db, sessionId: string): Promise<void> {
  await db.deleteFrom('operator_sessions').where('id', '=', sessionId).execute()
}

/** An entry for what the command line did (it is not the admin API, but it changes the same accounts). */
export async function recordCliAction(db: Db, action: string, target: Record<string, unknown>, now: number) {
  await recordAudit(db, {
    at: now,
    actor: 'cli',
    role: null,
    address: 'local',
    requestId: 'cli',
    action,
    status: 200,
    target,
  })
}
