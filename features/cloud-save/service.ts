import type { Db } from '../../db/types.js'
import type { CloudSave } from './tables.js'
import { affected, flag, isUniqueViolation } from '../../db/dialect.js'
import { refused, type ImportOutcome, importRow } from '../../db/import-outcome.js'
import { prepared, preparedCounterUpsert } from '../../db/prepared.js'
import { retryOnConflict } from '../../db/transaction.js'
import { AppError, notFound } from '../../platform/core/errors.js'
import { forExistingUser, userStanding } from '../../platform/security/session-store.js'

/**
 * The cloud_saves table is this feature's: one row per user, the bytes as sent. Every write is
 * settled by one statement: an unconditional save is an upsert that bumps the version; a save with
 * an expected version is an UPDATE … WHERE version = expected (or, for 0, an INSERT that the primary
 * key refuses when a save exists), so of concurrent saves expecting one version exactly one wins.
 * The same statement decides whether the player exists (contract §1.2): the foreign key refuses a save
 * of a player who does not exist, and a save over a version of a player without a save asks once.
 */
export const REVISION_HEADER = 'x-cloud-save-revision'

/** A save as the routes hand it over, whichever form (JSON text or raw bytes) the client sent. */
export interface SaveInput {
  userId: string
  bytes: Buffer
  binary: boolean
  /** undefined: save whatever is stored; 0: only if there is no save yet; n: only over version n. */
  expectedVersion: number | undefined
  now: number
}

/** What a save answers with: the new version the client sends back to guard its next save. */
export interface SaveResult {
  dataSizeBytes: number
  version: number
  updatedAt: number
}

/** The columns a load reads: the save and its version, not the size kept for analytics. */
export type StoredSave = Pick<CloudSave, 'data' | 'is_binary' | 'version' | 'updated_at'>

/** The 409 of a lost race, with the version now stored so the client can reload and merge. */
export function conflict(currentVersion: number) {
  return new AppError(
    409,
    'CONFLICT',
    currentVersion === 0
      ? 'There is no cloud save yet; nothing was written'
      : `The cloud save is at version ${currentVersion}; nothing was written. Load it and save again`,
    { currentVersion },
    { [REVISION_HEADER]: String(currentVersion) },
  )
}

const saveOf = prepared((db, p: { userId: string }) =>
  db.selectFrom('cloud_saves').select(['data', 'is_binary', 'version', 'updated_at']).where('user_id', '=', p.userId),
)

/** One prepared read: loading a save is the feature's hottest path. */
export async function findSave(db: Db, userId: string): Promise<StoredSave | undefined> {
  return saveOf.first(db, { userId })
}

/** An unconditional save: the stored version plus one, or 1 for the first save. */
const saveOverAnyVersion = preparedCounterUpsert<CloudSave>(
  'cloud_saves',
  ['user_id', 'data', 'is_binary', 'size_bytes', 'updated_at', 'version', 'created_at'],
  { key: 'user_id', counter: 'version', keep: ['created_at'] },
)

/** A save guarded by its expected version, settled in the UPDATE's WHERE so concurrent saves cannot both win. */
export async function writeSave(
  db: Db,
  { userId, bytes, binary, expectedVersion, now }: SaveInput,
): Promise<SaveResult> {
  const fields = { data: bytes, is_binary: flag(binary), size_bytes: bytes.length, updated_at: now }
  const done = (version: number): SaveResult => ({ dataSizeBytes: bytes.length, version, updatedAt: now })

  // Each write is run again when the database aborts it to settle a conflict (a Galera node's
  // certification failure when two nodes wrote the row at once): each is safe to repeat, and the
  // repeat meets the winner's row (a unique violation, or no row at the expected version).
  if (expectedVersion === undefined) {
    const row = { user_id: userId, ...fields, version: 1, created_at: now }
    return done(await forExistingUser(retryOnConflict(() => saveOverAnyVersion(db, row))))
  }
  if (expectedVersion === 0) {
    try {
      await forExistingUser(
        retryOnConflict(() =>
          db
            .insertInto('cloud_saves')
            .values({ user_id: userId, ...fields, version: 1, created_at: now })
            .execute(),
        ),
      )
      return done(1)
    } catch (error) {
      if (!isUniqueViolation(error)) throw error
    }
  } else {
    const result = await retryOnConflict(() =>
      db
        .updateTable('cloud_saves')
        .set({ ...fields, version: expectedVersion + 1 })
        .where('user_id', '=', userId)
        .where('version', '=', expectedVersion)
        .executeTakeFirst(),
    )
    if (affected(result) === 1) return done(expectedVersion + 1)
  }
  // Lost: the version read here is only reported, it decides nothing.
  const current = await db.selectFrom('cloud_saves').select('version').where('user_id', '=', userId).executeTakeFirst()
  // No save to update: the player may not exist at all, which the contract answers before a conflict.
  if (!current && (await userStanding(db, userId)) === 'UNKNOWN') throw notFound('USER_NOT_FOUND', 'User not found')
  throw conflict(current?.version ?? 0)
}

// ---- data in and out --------------------------------------------------------------------------

/**
 * A text save brought over from another server, as version 1 at its own time. The primary key on
 * the user makes a second import a no-op, and a save the player made here since is never overwritten.
 * A dry run imports inside a transaction, which a refused row must leave usable (`importRow` guards it).
 */
export async function importSave(
  db: Db,
  save: { userId: string; text: string; updatedAt: number; maxBytes: number },
): Promise<ImportOutcome> {
  const bytes = Buffer.from(save.text, 'utf8')
  if (bytes.length > save.maxBytes) return refused(`the save is ${bytes.length} bytes, over CLOUD_SAVE_MAX_BYTES`)
  return importRow(
    db,
    () =>
      db
        .insertInto('cloud_saves')
        .values({
          user_id: save.userId,
          data: bytes,
          is_binary: 0,
          size_bytes: bytes.length,
          version: 1,
          created_at: save.updatedAt,
          updated_at: save.updatedAt,
        })
        .execute(),
    `user ${save.userId} does not exist`,
  )
}

/** The player's save for their data export: text as it was saved, binary saves in base64. */
export async function exportForUser(db: Db, userId: string) {
  const row = await db.selectFrom('cloud_saves').selectAll().where('user_id', '=', userId).executeTakeFirst()
  if (!row) return null
  const binary = row.is_binary === 1
  const data = Buffer.from(row.data)
  return {
    encoding: binary ? ('base64' as const) : ('utf8' as const),
    data: binary ? data.toString('base64') : data.toString('utf8'),
    sizeBytes: Number(row.size_bytes),
    version: Number(row.version),
    createdAt: new Date(Number(row.created_at)).toISOString(),
    updatedAt: new Date(Number(row.updated_at)).toISOString(),
  }
}
export * from './stats.js'
