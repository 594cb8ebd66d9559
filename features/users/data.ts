import type { Db } from '../../db/types.js'
import { isUniqueViolation } from '../../db/dialect.js'
import { guarded } from '../../db/savepoint.js'
import { toIso, toIsoOrNull } from '../../platform/core/clock.js'
import { hashToken } from '../../platform/security/secrets.js'
import { COPIED, EXISTS, refused, type ImportOutcome } from '../../db/import-outcome.js'
import { UUID_TEXT } from '../../platform/schemas/common.js'
import { findUser, insertUser, NAME_MAX, normalizeName } from './accounts.js'

// ---- data in and out ------------------------------------------------------------------------

/**
 * An anonymous user brought over from another server with their id, name and anonymous token (stored
 * hashed, as every token is), so an installed game signs in with the token it cached. The primary key
 * makes a second import of the same user a no-op.
 */
export async function importAnonymousUser(
  db: Db,
  user: { id: string; name: string; anonymousToken: string; createdAt: number },
): Promise<ImportOutcome> {
  const tokenHash = hashToken(user.anonymousToken)
  if (!UUID_TEXT.test(user.id)) return refused(`id "${user.id}" is not a UUID`)
  let username: string
  try {
    username = normalizeName(user.name, 'display_name')
  } catch {
    return refused(`name "${user.name}" is not 1-${NAME_MAX} characters after trimming`)
  }
  const id = user.id.toLowerCase()
  try {
    // A dry run imports inside a transaction, which the refusal must leave usable (`guarded`).
    await guarded(db, () =>
      insertUser.execute(db, {
        id,
        username,
        email: null,
        is_anonymous: 1,
        is_verified: 0,
        anonymous_token_hash: tokenHash,
        banned_at: null,
        ban_reason: null,
        created_at: user.createdAt,
        updated_at: user.createdAt,
        password_hash: null,
        email_key: null,
      }),
    )
    return COPIED
  } catch (error) {
    if (!isUniqueViolation(error)) throw error
    // Which key refused it is read only to say so: the write itself was decided by the database.
    const existing = await findUser(db, id)
    if (existing?.anonymous_token_hash === tokenHash) return EXISTS
    return refused(
      existing
        ? `an Outpost user with id ${id} already exists with another anonymous token`
        : 'its anonymous token is already used by another Outpost user',
    )
  }
}

/** The account as the export shows it: no password hash, no token hash. */
export async function exportAccount(db: Db, userId: string) {
  const user = await findUser(db, userId)
  if (!user) return undefined
  return {
    userId: user.id,
    username: user.username,
    displayName: user.username,
    email: user.email,
    isAnonymous: user.is_anonymous === 1,
    isVerified: user.is_verified === 1,
    hasPassword: user.password_hash !== null,
    hasAnonymousToken: user.anonymous_token_hash !== null,
    banned: user.banned_at !== null,
    bannedAt: toIsoOrNull(user.banned_at),
    banReason: user.ban_reason,
    createdAt: toIso(user.created_at),
    updatedAt: toIso(user.updated_at),
  }
}
