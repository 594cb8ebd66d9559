import { randomBytes, randomUUID } from 'node:crypto'
import { sql, type Transaction } from 'kysely'
import type { Database, Db, GiftCode } from '../../db/types.js'
import { affected, isForeignKeyViolation, isUniqueViolation } from '../../db/dialect.js'
import { inTransaction } from '../../db/transaction.js'
import { COPIED, EXISTS, refused, type ImportOutcome, importRow } from '../../db/import-outcome.js'
import { AppError, badRequest, notFound } from '../core/errors.js'
import { parseIsoTime, toIso, toIsoOrNull } from '../core/clock.js'
import { keysetPage } from '../http/pagination.js'
import { present } from '../../schemas/common.js'
import { cosmeticsInCatalog, grantUnlocks } from '../player-profile/service.js'
import type {
  AdminGiftCode,
  CreateGiftCodeBody,
  GeneratedGiftCodes,
  GenerateGiftCodesBody,
  GiftCodeReason,
  RedeemResponse,
  ValidateResponse,
} from '../../schemas/gift-codes.js'

/**
 * Gift codes. A redemption is settled in one transaction: a conditional UPDATE of the
 * code's counter (its affected-row count decides), an INSERT on the (code, user) primary key of the
 * redemptions, and the cosmetic grants through the player-profile service. Any of them refusing
 * rolls back all of them, so successful redemptions never exceed `max_redemptions` and never repeat
 * for one user, whatever the concurrency and however many server instances share the database.
 *
 * When several reasons apply, the one answered is the first of: NOT_FOUND, REVOKED (the operator's
 * word overrides everything), ALREADY_REDEEMED (a player who has the gift learns that, and not that
 * the last redemption, possibly their own, exhausted the code), NOT_STARTED, EXPIRED, EXHAUSTED (the
 * only reason that depends on other players).
 *
 * Deleting a user erases their redemption rows (ON DELETE CASCADE) but not what they counted for:
 * `redemption_count` is the number of gifts handed out, and a deleted player did receive theirs.
 */

const CODE = /^[A-Za-z0-9-]{4,32}$/

/** A typed code as stored (trimmed, upper-case), or undefined when it cannot be a code at all. */
export function normalizeCode(typed: string): string | undefined {
  const trimmed = typed.trim()
  // Tested before upper-casing: 'ı'.toUpperCase() is 'I', and 'ß' becomes 'SS'.
  return CODE.test(trimmed) ? trimmed.toUpperCase() : undefined
}

const MESSAGES: Record<GiftCodeReason, string> = {
  NOT_FOUND: 'Gift code not found',
  REVOKED: 'Gift code has been revoked',
  ALREADY_REDEEMED: 'You have already redeemed this gift code',
  NOT_STARTED: 'Gift code is not active yet',
  EXPIRED: 'Gift code has expired',
  EXHAUSTED: 'Gift code has reached its maximum number of redemptions',
}
const REDEEMED_MESSAGE = 'Gift code redeemed successfully'

type CodeState = Pick<GiftCode, 'revoked' | 'starts_at' | 'expires_at' | 'redemption_count' | 'max_redemptions'>

/** What stops anyone from redeeming the code now, besides revocation. */
function windowOrCapacity(row: CodeState, now: number): 'NOT_STARTED' | 'EXPIRED' | 'EXHAUSTED' | undefined {
  if (row.starts_at !== null && row.starts_at > now) return 'NOT_STARTED'
  if (row.expires_at !== null && row.expires_at <= now) return 'EXPIRED'
  if (row.redemption_count >= row.max_redemptions) return 'EXHAUSTED'
  return undefined
}

/** The reason a user cannot redeem the code, in the documented order; undefined when they can. */
function reasonOf(row: CodeState, redeemedByUser: boolean, now: number): GiftCodeReason | undefined {
  if (row.revoked === 1) return 'REVOKED'
  if (redeemedByUser) return 'ALREADY_REDEEMED'
  return windowOrCapacity(row, now)
}

function findByCode(db: Db, code: string) {
  return db.selectFrom('gift_codes').selectAll().where('code', '=', code).executeTakeFirst()
}

async function reasonFor(
  db: Db,
  code: string | undefined,
  userId: string,
  now: number,
): Promise<GiftCodeReason | undefined> {
  if (code === undefined) return 'NOT_FOUND'
  const row = await findByCode(db, code)
  if (!row) return 'NOT_FOUND'
  const redemption = await db
    .selectFrom('gift_code_redemptions')
    .select('user_id')
    .where('gift_code_id', '=', row.id)
    .where('user_id', '=', userId)
    .executeTakeFirst()
  return reasonOf(row, redemption !== undefined, now)
}

export async function validateGiftCode(db: Db, userId: string, typed: string, now: number): Promise<ValidateResponse> {
  const reason = await reasonFor(db, normalizeCode(typed), userId, now)
  return reason === undefined ? { valid: true } : { valid: false, reason }
}

/** A refusal inside the redeeming transaction: thrown to roll it back, answered as a 200 failure. */
class Refused extends Error {
  constructor(readonly reason: GiftCodeReason | undefined) {
    super('gift code refused')
  }
}

const failure = (reason: GiftCodeReason): RedeemResponse => ({
  success: false,
  message: MESSAGES[reason],
  reason,
  grantedUnlocks: [],
})

/**
 * Redeems a code for a user. 409 UNLOCK_LIMIT_REACHED (thrown by grantUnlocks) rolls everything back.
 * A grant whose cosmetic was deleted from the catalog since the code was made is skipped: deleting a
 * cosmetic takes it from every player, so it cannot be handed out either.
 */
export async function redeemGiftCode(
  db: Db,
  userId: string,
  typed: string,
  maxUnlocks: number,
  now: number,
): Promise<RedeemResponse> {
  const code = normalizeCode(typed)
  if (code === undefined) return failure('NOT_FOUND')
  try {
    const { giftData, granted } = await inTransaction(db, async (trx) => {
      const row = await findByCode(trx, code)
      if (!row) throw new Refused('NOT_FOUND')
      const claimed = await trx
        .updateTable('gift_codes')
        .set({ redemption_count: sql<number>`redemption_count + 1` })
        .where('id', '=', row.id)
        .whereRef('redemption_count', '<', 'max_redemptions')
        .where('revoked', '=', 0)
        .where((eb) => eb.or([eb('starts_at', 'is', null), eb('starts_at', '<=', now)]))
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
        .executeTakeFirst()
      // Which condition failed is read after the rollback, outside this transaction's snapshot.
      if (affected(claimed) === 0) throw new Refused(undefined)
      try {
        await trx
          .insertInto('gift_code_redemptions')
          .values({ gift_code_id: row.id, user_id: userId, granted_unlocks: '[]', redeemed_at: now })
          .execute()
      } catch (error) {
        if (isUniqueViolation(error)) throw new Refused('ALREADY_REDEEMED')
        // The user was deleted after the identity check: the users row is gone, so is the player.
        if (isForeignKeyViolation(error)) throw notFound('USER_NOT_FOUND', 'User not found')
        throw error
      }
      const granted = await grantLiveCosmetics(trx, userId, JSON.parse(row.grants) as string[], maxUnlocks, now)
      if (granted.length > 0) {
        await trx
          .updateTable('gift_code_redemptions')
          .set({ granted_unlocks: JSON.stringify(granted) })
          .where('gift_code_id', '=', row.id)
          .where('user_id', '=', userId)
          .execute()
      }
      return { giftData: row.gift_data, granted }
    })
    return { success: true, message: REDEEMED_MESSAGE, giftData, grantedUnlocks: granted }
  } catch (error) {
    if (!(error instanceof Refused)) throw error
    // A refused conditional update cannot be undone later (the count only grows, revocation is
    // final, the code is never deleted), so the fresh read finds its reason; the fallback only
    // covers a clock that moved backwards in between.
    return failure(error.reason ?? (await reasonFor(db, code, userId, now)) ?? 'EXHAUSTED')
  }
}

async function grantLiveCosmetics(
  trx: Transaction<Database>,
  userId: string,
  grants: string[],
  maxUnlocks: number,
  now: number,
) {
  if (grants.length === 0) return []
  const live = await cosmeticsInCatalog(trx, grants)
  return live.length === 0 ? [] : grantUnlocks(trx, userId, live, maxUnlocks, now)
}

// ---- operator ---------------------------------------------------------------------------------

function toAdmin(row: GiftCode, now: number): AdminGiftCode {
  return {
    id: row.id,
    code: row.code,
    giftData: row.gift_data,
    grants: JSON.parse(row.grants) as string[],
    maxRedemptions: row.max_redemptions,
    redemptionCount: row.redemption_count,
    startsAt: toIsoOrNull(row.starts_at),
    expiresAt: toIsoOrNull(row.expires_at),
    revoked: row.revoked === 1,
    revokedAt: toIsoOrNull(row.revoked_at),
    status: row.revoked === 1 ? 'REVOKED' : (windowOrCapacity(row, now) ?? 'ACTIVE'),
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  }
}

/** What every code of one create or generate call shares, checked before anything is written. */
interface CodeSettings {
  giftData: string
  grants: string[]
  maxRedemptions: number
  startsAt: number | null
  expiresAt: number | null
}

async function codeSettings(db: Db, body: CreateGiftCodeBody | GenerateGiftCodesBody): Promise<CodeSettings> {
  const startsAt = body.startsAt == null ? null : parseIsoTime(body.startsAt, 'body/startsAt')
  const expiresAt = body.expiresAt == null ? null : parseIsoTime(body.expiresAt, 'body/expiresAt')
  if (startsAt !== null && expiresAt !== null && expiresAt <= startsAt) {
    throw badRequest('body/expiresAt must be after startsAt', '/expiresAt')
  }
  const grants = [...new Set(body.grants ?? [])].sort()
  const inCatalog = new Set(await cosmeticsInCatalog(db, grants))
  const missing = grants.find((id) => !inCatalog.has(id))
  if (missing !== undefined)
    throw new AppError(400, 'COSMETIC_NOT_FOUND', `Cosmetic '${missing}' is not in the catalog`)
  return { giftData: body.giftData, grants, maxRedemptions: body.maxRedemptions, startsAt, expiresAt }
}

function rowOf(code: string, settings: CodeSettings, now: number) {
  return {
    id: randomUUID(),
    code,
    gift_data: settings.giftData,
    grants: JSON.stringify(settings.grants),
    max_redemptions: settings.maxRedemptions,
    redemption_count: 0,
    starts_at: settings.startsAt,
    expires_at: settings.expiresAt,
    revoked: 0 as const,
    revoked_at: null,
    created_at: now,
    updated_at: now,
  }
}

// No look-alikes: 0/O, 1/I/L are left out, so a code read off a card is typed right.
export const CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ'
// Bytes at or above this would favour the first letters (256 is not a multiple of 31): drawn again.
const UNBIASED_LIMIT = 256 - (256 % CODE_ALPHABET.length)
const RANDOM_GROUPS = 3
const GROUP_LENGTH = 4

function randomChars(n: number): string {
  let out = ''
  while (out.length < n) {
    for (const byte of randomBytes(n * 2)) {
      if (byte < UNBIASED_LIMIT) out += CODE_ALPHABET[byte % CODE_ALPHABET.length]
      if (out.length === n) break
    }
  }
  return out
}

/** `XXXX-XXXX-XXXX` from crypto randomness (about 59 bits), after the prefix and a '-'. */
export function randomCode(prefix?: string): string {
  const groups = Array.from({ length: RANDOM_GROUPS }, () => randomChars(GROUP_LENGTH))
  const head = prefix === undefined ? '' : prefix.endsWith('-') ? prefix : `${prefix}-`
  return `${head}${groups.join('-')}`
}

const INSERT_CHUNK = 500
const LOOKUP_CHUNK = 1000
const MAX_DRAW_ROUNDS = 10
const INSERT_ATTEMPTS = 3

async function takenCodes(trx: Transaction<Database>, codes: string[]): Promise<string[]> {
  const taken: string[] = []
  for (let start = 0; start < codes.length; start += LOOKUP_CHUNK) {
    const rows = await trx
      .selectFrom('gift_codes')
      .select('code')
      .where('code', 'in', codes.slice(start, start + LOOKUP_CHUNK))
      .execute()
    taken.push(...rows.map((r) => r.code))
  }
  return taken
}

/**
 * Inserts `count` fresh random codes in one transaction and returns them. Codes drawn twice or
 * already stored are drawn again; a code another writer stores between the check and the insert
 * trips the unique key, and the whole batch is drawn again.
 */
export async function insertRandomCodes(
  db: Db,
  count: number,
  prefix: string | undefined,
  settings: CodeSettings,
  now: number,
  draw: (prefix?: string) => string = randomCode,
): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await inTransaction(db, async (trx) => {
        const codes = new Set<string>()
        for (let round = 0; codes.size < count; round++) {
          if (round === MAX_DRAW_ROUNDS)
            throw new AppError(409, 'CONFLICT', 'Could not draw enough unused codes; use a longer or different prefix')
          while (codes.size < count) codes.add(draw(prefix))
          for (const taken of await takenCodes(trx, [...codes])) codes.delete(taken)
        }
        const rows = [...codes].map((code) => rowOf(code, settings, now))
        for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
          await trx
            .insertInto('gift_codes')
            .values(rows.slice(start, start + INSERT_CHUNK))
            .execute()
        }
        return [...codes]
      })
    } catch (error) {
      if (attempt < INSERT_ATTEMPTS && isUniqueViolation(error)) continue
      throw error
    }
  }
}

export async function createGiftCode(db: Db, body: CreateGiftCodeBody, now: number): Promise<AdminGiftCode> {
  const settings = await codeSettings(db, body)
  const wanted = present(body.code)?.toUpperCase()
  let code: string
  if (wanted === undefined) {
    ;[code] = await insertRandomCodes(db, 1, undefined, settings, now)
  } else {
    try {
      await db
        .insertInto('gift_codes')
        .values(rowOf(wanted, settings, now))
        .execute()
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError(409, 'CONFLICT', `Gift code '${wanted}' already exists`)
      throw error
    }
    code = wanted
  }
  return toAdmin((await findByCode(db, code))!, now)
}

export async function generateGiftCodes(db: Db, body: GenerateGiftCodesBody, now: number): Promise<GeneratedGiftCodes> {
  const settings = await codeSettings(db, body)
  const codes = await insertRandomCodes(db, body.count, present(body.prefix)?.toUpperCase(), settings, now)
  return {
    count: codes.length,
    codes,
    giftData: settings.giftData,
    grants: settings.grants,
    maxRedemptions: settings.maxRedemptions,
    startsAt: toIsoOrNull(settings.startsAt),
    expiresAt: toIsoOrNull(settings.expiresAt),
    createdAt: toIso(now),
  }
}

/** Newest first; with `prefix`, only the codes that start with it (one generated batch, say). */
export async function listGiftCodes(
  db: Db,
  options: { limit: number; cursor?: string; prefix?: string | null },
  now: number,
) {
  let query = db.selectFrom('gift_codes').selectAll()
  const prefix = present(options.prefix)
  // The pattern allows [A-Za-z0-9-] only: no LIKE wildcard can come in with it.
  if (prefix !== undefined) query = query.where('code', 'like', `${prefix.toUpperCase()}%`)
  const { items, nextCursor } = await keysetPage(query, {
    cursor: options.cursor,
    limit: options.limit,
    keys: ['created_at', 'id'],
  })
  return { items: items.map((r) => toAdmin(r, now)), nextCursor }
}

async function requireCode(db: Db, typed: string): Promise<GiftCode> {
  const code = normalizeCode(typed)
  const row = code === undefined ? undefined : await findByCode(db, code)
  if (!row) throw notFound('NOT_FOUND', MESSAGES.NOT_FOUND)
  return row
}

export async function getGiftCode(db: Db, typed: string, now: number): Promise<AdminGiftCode> {
  return toAdmin(await requireCode(db, typed), now)
}

/** Revocation is final and idempotent: a second revoke keeps the first `revokedAt`. */
export async function revokeGiftCode(db: Db, typed: string, now: number): Promise<AdminGiftCode> {
  const row = await requireCode(db, typed)
  await db
    .updateTable('gift_codes')
    .set({ revoked: 1, revoked_at: now, updated_at: now })
    .where('id', '=', row.id)
    .where('revoked', '=', 0)
    .execute()
  return toAdmin((await findByCode(db, row.code))!, now)
}

/** Who redeemed a code, oldest first. Redemptions of deleted users are gone with them. */
export async function listRedemptions(db: Db, typed: string, options: { limit: number; cursor?: string }) {
  const row = await requireCode(db, typed)
  const query = db
    .selectFrom('gift_code_redemptions')
    .select(['user_id', 'granted_unlocks', 'redeemed_at'])
    .where('gift_code_id', '=', row.id)
  const { items, nextCursor } = await keysetPage(query, {
    cursor: options.cursor,
    limit: options.limit,
    keys: ['redeemed_at', 'user_id'],
    direction: 'asc',
  })
  return {
    items: items.map((r) => ({
      userId: r.user_id,
      grantedUnlocks: JSON.parse(r.granted_unlocks) as string[],
      redeemedAt: toIso(r.redeemed_at),
    })),
    nextCursor,
  }
}

// ---- data in and out --------------------------------------------------------------------------

/**
 * A gift code brought over from another server with its id and its redemption count. Codes are kept
 * upper-case here (players' input is upper-cased before a lookup), so a code that cannot be one is
 * refused. The primary key makes a second import a no-op; the unique code refuses a clash.
 */
export async function importGiftCode(
  db: Db,
  input: {
    id: string
    code: string
    giftData: string
    maxRedemptions: number
    redemptionCount: number
    expiresAt: number | null
    createdAt: number
  },
): Promise<ImportOutcome> {
  const code = normalizeCode(input.code)
  if (code === undefined) return refused(`code "${input.code}" is not 4-32 characters of A-Z, 0-9 and "-"`)
  const id = input.id.toLowerCase()
  try {
    await db
      .insertInto('gift_codes')
      .values({
        id,
        code,
        gift_data: input.giftData,
        grants: '[]',
        max_redemptions: input.maxRedemptions,
        redemption_count: input.redemptionCount,
        starts_at: null,
        expires_at: input.expiresAt,
        revoked: 0,
        revoked_at: null,
        created_at: input.createdAt,
        updated_at: input.createdAt,
      })
      .execute()
    return COPIED
  } catch (error) {
    if (!isUniqueViolation(error)) throw error
    const existing = await findByCode(db, code)
    return existing?.id === id ? EXISTS : refused(`code ${code} already exists here`)
  }
}

/** A redemption brought over with its code: the (code, user) primary key makes a second import a no-op. */
export async function importRedemption(
  db: Db,
  input: { giftCodeId: string; userId: string; redeemedAt: number },
): Promise<ImportOutcome> {
  return importRow(
    () =>
      db
        .insertInto('gift_code_redemptions')
        .values({
          gift_code_id: input.giftCodeId.toLowerCase(),
          user_id: input.userId.toLowerCase(),
          granted_unlocks: '[]',
          redeemed_at: input.redeemedAt,
        })
        .execute(),
    'its gift code or its user was not imported',
  )
}

/** The player's redemptions for their data export. */
export async function exportForUser(db: Db, userId: string) {
  const rows = await db
    .selectFrom('gift_code_redemptions as r')
    .innerJoin('gift_codes as c', 'c.id', 'r.gift_code_id')
    .select(['c.code', 'c.gift_data', 'r.granted_unlocks', 'r.redeemed_at'])
    .where('r.user_id', '=', userId)
    .orderBy('r.redeemed_at')
    .orderBy('c.code')
    .execute()
  return rows.map((r) => ({
    code: r.code,
    giftData: r.gift_data,
    grantedUnlocks: JSON.parse(r.granted_unlocks) as string[],
    redeemedAt: toIso(Number(r.redeemed_at)),
  }))
}
