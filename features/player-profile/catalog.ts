import { sql, type Transaction } from 'kysely'
import type { Database, Db } from '../../db/types.js'
import { affected, flag, insertOrLock } from '../../db/dialect.js'
import { withTransaction } from '../../db/transaction.js'
import { AppError, notFound } from '../../platform/core/errors.js'
import { toIso } from '../../platform/core/clock.js'
import { keysetPage } from '../../platform/http/pagination.js'
import type { EventSender } from '../../platform/core/events.js'
import { COSMETIC_ID_PATTERN, type AdminCosmetic } from './schemas.js'

/**
 * The cosmetics catalog: the operator's entries (avatars, frames, badges) and the checks a profile
 * write or a grant makes against it. Taking an entry away also takes it off the profiles showing it.
 */
export type Cosmetic = { id: string; type: 'avatar' | 'frame' | 'badge'; locked: number }

const COSMETIC_ID = new RegExp(COSMETIC_ID_PATTERN)

/** Refuses malformed ids before any query, so a typo is a 400 and not a missing cosmetic. */
export function assertWellFormed(ids: Iterable<string>) {
  for (const id of ids) {
    if (!COSMETIC_ID.test(id)) {
      throw new AppError(
        400,
        'INVALID_COSMETIC_ID',
        `Cosmetic id '${id}' is not valid: lower-case letters, digits, '.', '_', '-', at most 32 characters`,
      )
    }
  }
}

/** The catalog rows of the ids asked about, in one query, for checks against type and lock. */
export async function catalogEntries(db: Db, ids: readonly string[]): Promise<Map<string, Cosmetic>> {
  if (ids.length === 0) return new Map()
  const rows = await db
    .selectFrom('cosmetics')
    .select(['id', 'type', 'locked'])
    .where('id', 'in', [...ids])
    .execute()
  return new Map(rows.map((r) => [r.id, r]))
}

/** The ids among `ids` that are in the catalog, sorted (gift codes check their grants against it). */
export async function cosmeticsInCatalog(db: Db, ids: readonly string[]): Promise<string[]> {
  return [...(await catalogEntries(db, [...new Set(ids)])).keys()].sort()
}

/** Names the first id the catalog lacks, so the client knows which to fix. */
export function assertInCatalog(ids: readonly string[], catalog: Map<string, Cosmetic>) {
  const missing = ids.find((id) => !catalog.has(id))
  if (missing !== undefined)
    throw new AppError(400, 'COSMETIC_NOT_FOUND', `Cosmetic '${missing}' is not in the catalog`)
}

/** Removes a cosmetic from the slots of every profile showing it (or of one player's). */
export async function takeOffProfiles(
  trx: Transaction<Database>,
  events: EventSender,
  id: string,
  now: number,
  userId?: string,
) {
  events.notify(trx, 'publicPlayerChanged')
  let slotQuery = trx.updateTable('player_profiles')
  for (const column of ['avatar_id', 'frame_id'] as const) {
    let query = slotQuery.set({ [column]: null, updated_at: now }).where(column, '=', id)
    if (userId) query = query.where('user_id', '=', userId)
    await query.execute()
    slotQuery = trx.updateTable('player_profiles')
  }
  // Ids are [a-z0-9._-]: the quoted id cannot contain a LIKE wildcard other than '_', which only widens the match.
  let badgeQuery = trx.selectFrom('player_profiles').select(['user_id', 'badges']).where('badges', 'like', `%"${id}"%`)
  if (userId) badgeQuery = badgeQuery.where('user_id', '=', userId)
  for (const row of await badgeQuery.execute()) {
    const badges = (JSON.parse(row.badges) as string[]).filter((b) => b !== id)
    await trx
      .updateTable('player_profiles')
      .set({ badges: JSON.stringify(badges), updated_at: now })
      .where('user_id', '=', row.user_id)
      .execute()
  }
}

function toAdminCosmetic(row: {
  id: string
  type: Cosmetic['type']
  name: string
  locked: number
  created_at: number
  updated_at: number
}): AdminCosmetic {
  return {
    id: row.id,
    type: row.type,
    name: row.name,
    locked: row.locked === 1,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  }
}

/** The console's catalog page, oldest first so new cosmetics land at the end. */
export async function listCosmetics(db: Db, options: { limit: number; cursor?: string }) {
  const { items, nextCursor } = await keysetPage(db.selectFrom('cosmetics').selectAll(), {
    ...options,
    keys: ['created_at', 'id'],
    direction: 'asc',
  })
  return { items: items.map(toAdminCosmetic), nextCursor }
}

/** Creates or changes a catalog entry by id, so an operator's script can run twice. */
export async function putCosmetic(
  db: Db,
  id: string,
  input: { type: Cosmetic['type']; name: string; locked: boolean },
  now: number,
): Promise<AdminCosmetic> {
  const locked = flag(input.locked)
  const values = { type: input.type, name: input.name, locked, updated_at: now }
  await withTransaction(db, async (trx) => {
    await insertOrLock(
      trx,
      'cosmetics',
      trx.insertInto('cosmetics').values({ id, ...values, created_at: now }),
      ['id'],
      'id',
    ).execute()
    await trx.updateTable('cosmetics').set(values).where('id', '=', id).execute()
  })
  const row = await db.selectFrom('cosmetics').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
  return toAdminCosmetic(row)
}

/** Deletes a catalog entry, the unlocks of it and its place on every profile, in one transaction. */
export async function deleteCosmetic(db: Db, events: EventSender, id: string, now: number): Promise<void> {
  await withTransaction(db, async (trx) => {
    const owners = trx.selectFrom('player_unlocks').select('user_id').where('cosmetic_id', '=', id)
    await trx
      .updateTable('player_profiles')
      .set({ unlock_count: sql<number>`unlock_count - 1` })
      .where('user_id', 'in', owners)
      .execute()
    await trx.deleteFrom('player_unlocks').where('cosmetic_id', '=', id).execute()
    await takeOffProfiles(trx, events, id, now)
    const removed = await trx.deleteFrom('cosmetics').where('id', '=', id).executeTakeFirst()
    if (affected(removed) === 0) throw notFound('NOT_FOUND', `Cosmetic '${id}' is not in the catalog`)
  })
}

/** A catalog entry as copying compares it (its id is the key). */
export interface CosmeticCopy {
  type: Cosmetic['type']
  name: string
  locked: boolean
}

/** The whole catalog by id: what copying the cosmetics to another game compares. */
export async function snapshotCosmetics(db: Db): Promise<Record<string, CosmeticCopy>> {
  const rows = await db.selectFrom('cosmetics').selectAll().execute()
  return Object.fromEntries(rows.map((r) => [r.id, { type: r.type, name: r.name, locked: r.locked === 1 }]))
}

/**
 * Writes the entries of `put` and deletes those of `remove`, in one transaction. A deleted entry goes
 * as the operator's delete takes it: from the players who had unlocked it and off every profile.
 */
export async function replaceCosmetics(
  db: Db,
  events: EventSender,
  change: { put: Record<string, CosmeticCopy>; remove: readonly string[] },
  now: number,
): Promise<void> {
  await withTransaction(db, async (trx) => {
    for (const [id, entry] of Object.entries(change.put)) await putCosmetic(trx, id, entry, now)
    for (const id of change.remove) await deleteCosmetic(trx, events, id, now)
  })
}
