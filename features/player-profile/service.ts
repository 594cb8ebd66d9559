import { sql, type Transaction } from 'kysely'
import type { Database, Db } from '../../db/types.js'
import type { PlayerProfile } from './tables.js'
import { affected, insertOrIgnore, insertOrLock } from '../../db/dialect.js'
import { withTransaction } from '../../db/transaction.js'
import { prepared, preparedFamily } from '../../db/prepared.js'
import { AppError, badRequest, notFound } from '../../platform/core/errors.js'
import { toIso } from '../../platform/core/clock.js'
import type { EventSender } from '../../platform/core/events.js'
import { present } from '../../platform/schemas/common.js'
import { findUser, lockUser, normalizeName, renameUser, type User } from '../users/service.js'
import type { ProfileDocument, ProfileUpdateBody, PublicProfile } from './schemas.js'
import { assertInCatalog, assertWellFormed, catalogEntries, takeOffProfiles, type Cosmetic } from './catalog.js'

export {
  cosmeticsInCatalog,
  deleteCosmetic,
  listCosmetics,
  putCosmetic,
  replaceCosmetics,
  snapshotCosmetics,
  type CosmeticCopy,
} from './catalog.js'

/**
 * The player profile. A player's visible profile (avatar, frame, badges) and unlocks live in this
 * feature's tables; the name is the user's, read through the users service. The cosmetics catalog
 * is in catalog.ts.
 */

/** The operator's bounds (environment), passed in so the service reads no config. */
export interface ProfileLimits {
  maxBadges: number
  maxUnlocks: number
}

/** Profiles are read with every page of a board: a cap keeps one player from slowing them all. */
export const CUSTOM_DATA_MAX_BYTES = 16 * 1024

const EMPTY_PROFILE: PublicProfile = { avatarId: null, frameId: null, badges: [] }

function toPublicProfile(row: Pick<PlayerProfile, 'avatar_id' | 'frame_id' | 'badges'> | undefined): PublicProfile {
  if (!row) return { ...EMPTY_PROFILE, badges: [] }
  return { avatarId: row.avatar_id, frameId: row.frame_id, badges: JSON.parse(row.badges) as string[] }
}

/** One statement per list length (a page of leaderboard entries: at most 101). */
const profilesOf = preparedFamily(
  (count: number) => (db: Db, ids: readonly string[]) =>
    db
      .selectFrom('player_profiles')
      .select(['user_id', 'avatar_id', 'frame_id', 'badges'])
      .where(
        'user_id',
        'in',
        Array.from({ length: count }, (_, i) => ids[i]!),
      ),
)

/** The public profiles of a page of players, in one query (leaderboard entries). */
export async function publicProfiles(db: Db, userIds: readonly string[]): Promise<Map<string, PublicProfile>> {
  const result = new Map<string, PublicProfile>()
  if (userIds.length === 0) return result
  const ids = [...new Set(userIds)]
  const rows = await profilesOf(ids.length).all(db, ids)
  for (const row of rows) result.set(row.user_id, toPublicProfile(row))
  for (const id of userIds) if (!result.has(id)) result.set(id, toPublicProfile(undefined))
  return result
}

/**
 * Creates the player's profile row if missing, and holds its write lock until the transaction ends.
 * The user's row is write-locked first: the profile's upsert takes a shared lock on it (the foreign
 * key) before it waits for the profile row, and a holder of the profile row that renames the user
 * then waits for that shared lock: InnoDB's deadlock, which 20 parallel PUTs of one player hit again
 * and again. Taken in this order, every write of one player's profile queues on the user's row.
 */
async function lockProfileRow(trx: Transaction<Database>, userId: string, now: number) {
  await lockUser(trx, userId)
  await insertOrLock(
    trx,
    'player_profiles',
    trx.insertInto('player_profiles').values({
      user_id: userId,
      avatar_id: null,
      frame_id: null,
      badges: '[]',
      custom_data: null,
      unlock_count: 0,
      created_at: now,
      updated_at: now,
    }),
    ['user_id'],
    'unlock_count',
  ).execute()
}

async function ownedUnlocks(db: Db, userId: string, ids?: readonly string[]): Promise<string[]> {
  if (ids && ids.length === 0) return []
  let query = db.selectFrom('player_unlocks').select('cosmetic_id').where('user_id', '=', userId)
  if (ids) query = query.where('cosmetic_id', 'in', [...ids])
  const rows = await query.orderBy('cosmetic_id').execute()
  return rows.map((r) => r.cosmetic_id)
}

// ---- the player's document --------------------------------------------------------------------

/**
 * The player's unlocks (kind 0) and the whole catalog (kind 1) in one statement, each sorted by id:
 * two reads of this feature's tables that share a round trip. The unlock rows fill the catalog's
 * columns with placeholders.
 */
const unlocksAndCatalog = prepared((db, p: { userId: string }) =>
  db
    .selectFrom('player_unlocks')
    .select([
      sql<number>`0`.as('kind'),
      'cosmetic_id as id',
      sql<Cosmetic['type']>`'badge'`.as('type'),
      sql<number>`0`.as('locked'),
    ])
    .where('user_id', '=', p.userId)
    .unionAll(db.selectFrom('cosmetics').select([sql<number>`1`.as('kind'), 'id', 'type', 'locked']))
    .orderBy('kind')
    .orderBy('id'),
)

async function documentLists(db: Db, userId: string): Promise<{ unlocks: string[]; catalog: Cosmetic[] }> {
  const rows = await unlocksAndCatalog.all(db, { userId })
  const unlocks: string[] = []
  const catalog: Cosmetic[] = []
  for (const row of rows) {
    if (Number(row.kind) === 0) unlocks.push(row.id)
    else catalog.push({ id: row.id, type: row.type, locked: Number(row.locked) })
  }
  return { unlocks, catalog }
}

type DocumentUser = Pick<User, 'username' | 'created_at' | 'updated_at'>

/**
 * The player's own view: profile, unlocks and the limits, in one answer so the SDK needs one call.
 * `known` is the user's row when the caller has just read it (a profile write): not read again.
 */
export async function getProfileDocument(
  db: Db,
  userId: string,
  limits: ProfileLimits,
  known?: DocumentUser,
): Promise<ProfileDocument> {
  const [user, row, { unlocks, catalog }] = await Promise.all([
    known ?? findUser(db, userId),
    db.selectFrom('player_profiles').selectAll().where('user_id', '=', userId).executeTakeFirst(),
    documentLists(db, userId),
  ])
  if (!user) throw notFound('PLAYER_NOT_FOUND', 'Player not found')
  const owned = new Set(unlocks)
  return {
    userId,
    username: user.username,
    displayName: user.username,
    profile: toPublicProfile(row),
    unlocks,
    cosmetics: catalog.map((c) => ({
      id: c.id,
      type: c.type,
      locked: c.locked === 1,
      available: c.locked === 0 || owned.has(c.id),
    })),
    limits: { maxBadges: limits.maxBadges, maxUnlocks: limits.maxUnlocks },
    customData: row?.custom_data ? (JSON.parse(row.custom_data) as Record<string, unknown>) : null,
    createdAt: toIso(row?.created_at ?? user.created_at),
    updatedAt: toIso(row?.updated_at ?? user.updated_at),
  }
}

/**
 * The checks of a profile update that need nothing but the body, in the order of contract §5.1: the name
 * after trimming and customData's serialized size (validation), then the badge list and the ids'
 * format. The route runs them before the session, as validation comes first; the
 * update runs them again for any other caller.
 */
export function checkProfileBody(body: ProfileUpdateBody, limits: ProfileLimits) {
  const displayName = present(body.displayName)
  if (displayName !== undefined) normalizeName(displayName, 'displayName')
  let customText: string | undefined
  if (body.customData !== undefined && body.customData !== null) {
    customText = JSON.stringify(body.customData)
    if (Buffer.byteLength(customText) > CUSTOM_DATA_MAX_BYTES) {
      throw badRequest(`body/customData must be at most ${CUSTOM_DATA_MAX_BYTES} bytes serialized`, '/customData')
    }
  }
  const avatarId = present(body.avatarId) ?? null
  const frameId = present(body.frameId) ?? null
  const badges = body.badges ?? []
  if (badges.length > limits.maxBadges) {
    throw new AppError(400, 'INVALID_BADGES', `At most ${limits.maxBadges} badges are allowed`)
  }
  const duplicate = badges.find((id, i) => badges.indexOf(id) !== i)
  if (duplicate !== undefined) throw new AppError(400, 'INVALID_BADGES', `Badge '${duplicate}' is listed twice`)
  const slots: Array<[string, Cosmetic['type']]> = [
    ...(avatarId === null ? [] : [[avatarId, 'avatar'] as [string, Cosmetic['type']]]),
    ...(frameId === null ? [] : [[frameId, 'frame'] as [string, Cosmetic['type']]]),
    ...badges.map((id) => [id, 'badge'] as [string, Cosmetic['type']]),
  ]
  assertWellFormed(slots.map(([id]) => id))
  return { displayName, customText, avatarId, frameId, badges, slots }
}

/**
 * PUT /player-profile: the three slots are replaced together; name and customData only
 * when sent. Every check runs before anything is written, and the writes share one transaction.
 */
export async function updateProfile(
  db: Db,
  events: EventSender,
  userId: string,
  body: ProfileUpdateBody,
  limits: ProfileLimits,
  now: number,
): Promise<ProfileDocument> {
  const { displayName, customText, avatarId, frameId, badges, slots } = checkProfileBody(body, limits)
  const ids = slots.map(([id]) => id)

  const user = await withTransaction(db, async (trx): Promise<DocumentUser> => {
    const user = await findUser(trx, userId)
    if (!user) throw notFound('PLAYER_NOT_FOUND', 'Player not found')
    const catalog = await catalogEntries(trx, ids)
    assertInCatalog(ids, catalog)
    for (const [id, type] of slots) {
      const actual = catalog.get(id)!.type
      if (actual !== type) {
        throw new AppError(400, 'COSMETIC_TYPE_MISMATCH', `Cosmetic '${id}' is a ${actual}, not a ${type}`)
      }
    }
    const lockedIds = [...new Set(ids.filter((id) => catalog.get(id)!.locked === 1))]
    const owned = new Set(await ownedUnlocks(trx, userId, lockedIds))
    const locked = lockedIds.find((id) => !owned.has(id))
    if (locked !== undefined)
      throw new AppError(403, 'COSMETIC_LOCKED', `Cosmetic '${locked}' is locked for this player`)

    await lockProfileRow(trx, userId, now)
    await trx
      .updateTable('player_profiles')
      .set({
        avatar_id: avatarId,
        frame_id: frameId,
        badges: JSON.stringify(badges),
        ...(customText === undefined ? {} : { custom_data: customText }),
        updated_at: now,
      })
      .where('user_id', '=', userId)
      .execute()
    events.notify(trx, 'publicPlayerChanged')
    if (displayName === undefined) return user
    return {
      ...user,
      username: await renameUser(trx, events, userId, displayName, now, 'displayName'),
      updated_at: now,
    }
  })
  // The user's row as this transaction read and wrote it; the profile, unlocks and catalog read anew.
  return getProfileDocument(db, userId, limits, user)
}

// ---- unlocks ----------------------------------------------------------------------------------

/**
 * Grants cosmetics to a player (the operator, gift codes) and returns the ids newly granted; ids the
 * player already has are not granted twice. More than `maxUnlocks` in total is 409
 * UNLOCK_LIMIT_REACHED and nothing is granted. Pass the caller's transaction to make the grant part
 * of it. The limit is settled in SQL: the unlock rows are inserted (a concurrent grant of the same id
 * waits on the row and then finds it), then the player's `unlock_count` is raised by the number
 * inserted only while it stays within the limit; zero rows updated rolls the grant back.
 *
 * `checked`: the caller's transaction has itself proven that the user exists (a row it wrote refers
 * to them) and read `ids` from the catalog (`cosmeticsInCatalog`), so neither is read again. The
 * catalog read locks nothing: on MySQL (one snapshot) and SQLite (one writer) a second read answers the
 * same, and on PostgreSQL it only narrows, never closes, the window of a deletion committing meanwhile.
 */
export async function grantUnlocks(
  db: Db,
  userId: string,
  ids: readonly string[],
  maxUnlocks: number,
  now: number,
  checked = false,
): Promise<string[]> {
  const wanted = [...new Set(ids)].sort()
  assertWellFormed(wanted)
  return withTransaction(db, async (trx) => {
    if (!checked) {
      if (!(await findUser(trx, userId))) throw notFound('USER_NOT_FOUND', 'User not found')
      assertInCatalog(wanted, await catalogEntries(trx, wanted))
    }
    await lockProfileRow(trx, userId, now)
    const granted: string[] = []
    for (const id of wanted) {
      const inserted = await insertOrIgnore(
        trx,
        trx.insertInto('player_unlocks').values({ user_id: userId, cosmetic_id: id, created_at: now }),
      ).executeTakeFirst()
      if (affected(inserted) > 0) granted.push(id)
    }
    if (granted.length === 0) return granted
    const k = granted.length
    const raised = await trx
      .updateTable('player_profiles')
      .set({ unlock_count: sql<number>`unlock_count + ${k}`, updated_at: now })
      .where('user_id', '=', userId)
      .where(sql<number>`unlock_count + ${k}`, '<=', maxUnlocks)
      .executeTakeFirst()
    if (affected(raised) === 0) {
      throw new AppError(409, 'UNLOCK_LIMIT_REACHED', `A player can have at most ${maxUnlocks} unlocks`, { maxUnlocks })
    }
    return granted
  })
}

/** Takes an unlock back; a locked cosmetic the player shows is taken off the profile with it. */
export async function revokeUnlock(
  db: Db,
  events: EventSender,
  userId: string,
  id: string,
  now: number,
): Promise<void> {
  await withTransaction(db, async (trx) => {
    if (!(await findUser(trx, userId))) throw notFound('USER_NOT_FOUND', 'User not found')
    const removed = await trx
      .deleteFrom('player_unlocks')
      .where('user_id', '=', userId)
      .where('cosmetic_id', '=', id)
      .executeTakeFirst()
    if (affected(removed) === 0) throw notFound('NOT_FOUND', `The player has no unlock '${id}'`)
    await trx
      .updateTable('player_profiles')
      .set({ unlock_count: sql<number>`unlock_count - 1`, updated_at: now })
      .where('user_id', '=', userId)
      .execute()
    const cosmetic = await trx.selectFrom('cosmetics').select('locked').where('id', '=', id).executeTakeFirst()
    if (cosmetic?.locked === 1) await takeOffProfiles(trx, events, id, now, userId)
  })
}

/** What the console shows after a grant or a revoke: the unlocks now, and what was just granted. */
export async function adminUnlocks(db: Db, userId: string, maxUnlocks: number, granted?: string[]) {
  if (!(await findUser(db, userId))) throw notFound('USER_NOT_FOUND', 'User not found')
  return { userId, unlocks: await ownedUnlocks(db, userId), maxUnlocks, ...(granted ? { granted } : {}) }
}

// ---- data export ------------------------------------------------------------------------------

/** The player's profile and unlocks as stored, for their data export (null profile: never set). */
export async function exportForUser(db: Db, userId: string) {
  const [row, unlocks] = await Promise.all([
    db.selectFrom('player_profiles').selectAll().where('user_id', '=', userId).executeTakeFirst(),
    db
      .selectFrom('player_unlocks')
      .select(['cosmetic_id', 'created_at'])
      .where('user_id', '=', userId)
      .orderBy('cosmetic_id')
      .execute(),
  ])
  return {
    profile: row
      ? {
          avatarId: row.avatar_id,
          frameId: row.frame_id,
          badges: JSON.parse(row.badges) as string[],
          customData: row.custom_data ? (JSON.parse(row.custom_data) as Record<string, unknown>) : null,
          createdAt: toIso(Number(row.created_at)),
          updatedAt: toIso(Number(row.updated_at)),
        }
      : null,
    unlocks: unlocks.map((u) => ({ cosmeticId: u.cosmetic_id, unlockedAt: toIso(Number(u.created_at)) })),
  }
}
