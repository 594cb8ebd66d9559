import { randomUUID } from 'node:crypto'
import type { Db } from '../../db/types.js'
import { bumpChangeCounter } from '../../db/change-counters.js'
import { forUpdate, insertOrIgnore, isUniqueViolation } from '../../db/dialect.js'
import { DEFAULT_GAME } from '../../db/games.js'
import { inTransaction, withTransaction } from '../../db/transaction.js'
import { AppError, notFound } from '../core/errors.js'
import { hashToken, randomToken } from '../security/secrets.js'
import { changedSettings, type GameSettingsChange, type GameSettingsPatch } from './settings.js'

/**
 * The games and their keys in the default game's database (the server's), the one owner of the
 * `games` and `game_keys` tables. Every write bumps the `games` change counter in its transaction, so
 * each instance reloads its copy (registry.ts) within a second.
 */

/** At most this many keys a game holds that are not revoked (contract §14). */
export const MAX_KEYS = 100

/** A game as the admin API answers it. */
export interface GameRow {
  id: string
  name: string
  createdAt: string
}

/** A key as the admin API answers it; `key` (the secret) only in the answer that made it. */
export interface GameKey {
  id: string
  label: string
  prefix: string
  createdAt: string
  lastUsedAt: string | null
  revokedAt: string | null
}

/** What an instance keeps of the server's games: each game's row and the hashes of its live keys. */
export interface GamesSnapshot {
  games: Array<{ id: string; name: string; createdAt: number; settings: GameSettingsPatch }>
  keys: Array<{ id: string; gameId: string; hash: string }>
}

const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString())

/** The `default` game's row, made on the first start of a database from before games (no change for clients). */
export async function ensureDefaultGame(db: Db, now: number): Promise<void> {
  await insertOrIgnore(
    db,
    db.insertInto('games').values({
      id: DEFAULT_GAME,
      name: 'Default',
      settings: '{}',
      created_at: now,
      updated_at: now,
      deleted_at: null,
    }),
  ).execute()
}

/** Every live game and live key, for an instance's copy. */
export async function readSnapshot(db: Db): Promise<GamesSnapshot> {
  const [games, keys] = await Promise.all([
    db.selectFrom('games').select(['id', 'name', 'created_at', 'settings']).where('deleted_at', 'is', null).execute(),
    db
      .selectFrom('game_keys')
      .innerJoin('games', 'games.id', 'game_keys.game_id')
      .select(['game_keys.id', 'game_keys.game_id', 'game_keys.hash'])
      .where('game_keys.revoked_at', 'is', null)
      .where('games.deleted_at', 'is', null)
      .execute(),
  ])
  return {
    games: games.map((g) => ({
      id: g.id,
      name: g.name,
      createdAt: Number(g.created_at),
      settings: JSON.parse(g.settings) as GameSettingsPatch,
    })),
    keys: keys.map((k) => ({ id: k.id, gameId: k.game_id, hash: k.hash })),
  }
}

/** The game's row for the admin API; 404 GAME_NOT_FOUND when it does not exist (or is being erased). */
export async function findGame(db: Db, id: string): Promise<GameRow & { settings: GameSettingsPatch }> {
  const row = await db
    .selectFrom('games')
    .selectAll()
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst()
  if (!row) throw gameNotFound(id)
  return { id: row.id, name: row.name, createdAt: iso(row.created_at)!, settings: JSON.parse(row.settings) }
}

/** 404 GAME_NOT_FOUND, naming the id. */
export function gameNotFound(id: string): AppError {
  return notFound('GAME_NOT_FOUND', `No game '${id}' on this server: GET /api/v1/admin/games lists them`)
}

/** Adds the game's row and its first key (answered with its secret), in one transaction. */
export async function insertGame(db: Db, id: string, name: string, now: number) {
  try {
    return await inTransaction(db, async (trx) => {
      await trx
        .insertInto('games')
        .values({ id, name, settings: '{}', created_at: now, updated_at: now, deleted_at: null })
        .execute()
      const key = await insertKey(trx, id, 'first key', now)
      await bumpChangeCounter(trx, 'games')
      return { game: { id, name, createdAt: iso(now)! }, key }
    })
  } catch (error) {
    if (!isUniqueViolation(error)) throw error
    throw new AppError(409, 'CONFLICT', `A game '${id}' exists already (or is being erased): choose another id`)
  }
}

/**
 * Renames a game and/or changes its own settings (a field set to null goes back to the environment's),
 * under the row's lock, so two changes of different fields both hold; answers the row.
 */
export async function updateGame(
  db: Db,
  id: string,
  change: { name?: string; settings?: GameSettingsChange },
  now: number,
) {
  return withTransaction(db, async (trx) => {
    const row = await forUpdate(
      trx,
      trx.selectFrom('games').selectAll().where('id', '=', id).where('deleted_at', 'is', null),
    ).executeTakeFirst()
    if (!row) throw gameNotFound(id)
    const settings = changedSettings(JSON.parse(row.settings) as GameSettingsPatch, change.settings ?? {})
    await trx
      .updateTable('games')
      .set({ name: change.name ?? row.name, settings: JSON.stringify(settings), updated_at: now })
      .where('id', '=', id)
      .execute()
    await bumpChangeCounter(trx, 'games')
    return { id, name: change.name ?? row.name, createdAt: iso(row.created_at)!, settings }
  })
}

/**
 * Begins a game's erasure: from this commit it is gone for every instance (its keys with it). The
 * caller then drops its database and calls `forgetGame`; a game whose erasure stopped half-way is
 * found by `erasing` and finished by the next delete or start.
 */
export async function markGameDeleted(db: Db, id: string, now: number): Promise<void> {
  await withTransaction(db, async (trx) => {
    const marked = await trx
      .updateTable('games')
      .set({ deleted_at: now })
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst()
    if (!Number(marked.numUpdatedRows)) {
      const erasing = await trx.selectFrom('games').select('id').where('id', '=', id).executeTakeFirst()
      if (!erasing) throw gameNotFound(id)
    }
    await bumpChangeCounter(trx, 'games')
  })
}

/** The games whose erasure began and did not finish. */
export async function erasing(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('games').select('id').where('deleted_at', 'is not', null).execute()
  return rows.map((r) => r.id)
}

/** Removes an erased game's row and keys, once its database is gone. */
export async function forgetGame(db: Db, id: string): Promise<void> {
  await db.deleteFrom('games').where('id', '=', id).where('deleted_at', 'is not', null).execute()
}

async function insertKey(db: Db, gameId: string, label: string, now: number) {
  const secret = `opk_${randomToken(24)}`
  const id = randomUUID()
  const row = { id, game_id: gameId, label, prefix: secret.slice(0, 8), hash: hashToken(secret), created_at: now }
  await db
    .insertInto('game_keys')
    .values({ ...row, last_used_at: null, revoked_at: null })
    .execute()
  const key: GameKey & { key: string } = {
    id,
    label,
    prefix: row.prefix,
    createdAt: iso(now)!,
    lastUsedAt: null,
    revokedAt: null,
    key: secret,
  }
  return key
}

/**
 * The game's row, locked for the rest of the transaction: key writes of one game take turns on it. On
 * a Galera cluster the lock stays on its node; there the games' change counter, which every key write
 * bumps (a write the cluster certifies), orders them: one of two on two nodes is run again.
 */
async function lockGame(trx: Db, gameId: string) {
  const game = await forUpdate(
    trx,
    trx.selectFrom('games').select('id').where('id', '=', gameId).where('deleted_at', 'is', null),
  ).executeTakeFirst()
  if (!game) throw gameNotFound(gameId)
}

const activeKeys = async (trx: Db, gameId: string) =>
  Number(
    (
      await trx
        .selectFrom('game_keys')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('game_id', '=', gameId)
        .where('revoked_at', 'is', null)
        .executeTakeFirstOrThrow()
    ).n,
  )

/** A new key for the game (its secret answered once); 409 past MAX_KEYS live keys. */
export async function createKey(db: Db, gameId: string, label: string, now: number) {
  return withTransaction(db, async (trx) => {
    await lockGame(trx, gameId)
    if ((await activeKeys(trx, gameId)) >= MAX_KEYS) {
      throw new AppError(
        409,
        'CONFLICT',
        `The game holds ${MAX_KEYS} keys already: revoke one it no longer needs first`,
      )
    }
    const key = await insertKey(trx, gameId, label, now)
    await bumpChangeCounter(trx, 'games')
    return key
  })
}

/** The game's keys, newest first (revoked ones included, marked). */
export async function listKeys(db: Db, gameId: string): Promise<GameKey[]> {
  await findGame(db, gameId)
  const rows = await db
    .selectFrom('game_keys')
    .selectAll()
    .where('game_id', '=', gameId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute()
  return rows.map((r) => ({
    id: r.id,
    label: r.label,
    prefix: r.prefix,
    createdAt: iso(r.created_at)!,
    lastUsedAt: iso(r.last_used_at),
    revokedAt: iso(r.revoked_at),
  }))
}

/**
 * Revokes a key. A game keeps one live key at least (`default` also has API_KEY from the
 * environment, `envKey`): revoking the last one is 409. Revoking a revoked key answers it as it is.
 */
export async function revokeKey(db: Db, gameId: string, keyId: string, now: number, envKey: boolean) {
  return withTransaction(db, async (trx) => {
    await lockGame(trx, gameId)
    const key = await trx
      .selectFrom('game_keys')
      .selectAll()
      .where('id', '=', keyId)
      .where('game_id', '=', gameId)
      .executeTakeFirst()
    if (!key) throw notFound('KEY_NOT_FOUND', `The game '${gameId}' has no key '${keyId}'`)
    if (key.revoked_at === null) {
      if (!envKey && (await activeKeys(trx, gameId)) <= 1) {
        throw new AppError(409, 'CONFLICT', 'This is the last key of the game: create another before revoking it')
      }
      await trx.updateTable('game_keys').set({ revoked_at: now }).where('id', '=', keyId).execute()
      await bumpChangeCounter(trx, 'games')
    }
    return {
      id: key.id,
      label: key.label,
      prefix: key.prefix,
      createdAt: iso(key.created_at)!,
      lastUsedAt: iso(key.last_used_at),
      revokedAt: iso(key.revoked_at ?? now),
    }
  })
}

/** Records when keys were last used (kept in memory between flushes); never moves a time back. */
export async function recordKeyUse(db: Db, used: ReadonlyMap<string, number>): Promise<void> {
  for (const [id, at] of used) {
    await db
      .updateTable('game_keys')
      .set({ last_used_at: at })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
      .execute()
  }
}
