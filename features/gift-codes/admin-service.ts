// The operator's side of gift codes: create, generate, list, revoke, and who redeemed what.
import { randomBytes, randomUUID } from 'node:crypto'
import type { Transaction } from 'kysely'
import type { Database, Db } from '../../db/types.js'
import type { GiftCode } from './tables.js'
import { affected, insertOrIgnore, isUniqueViolation } from '../../db/dialect.js'
import { inTransaction } from '../../db/transaction.js'
import { AppError, badRequest, notFound } from '../../platform/core/errors.js'
import { parseIsoTime, toIso, toIsoOrNull } from '../../platform/core/clock.js'
import { keysetPage } from '../../platform/http/pagination.js'
import { present } from '../../platform/schemas/common.js'
import { cosmeticsInCatalog } from '../player-profile/service.js'
import type { AdminGiftCode, CreateGiftCodeBody, GeneratedGiftCodes, GenerateGiftCodesBody } from './schemas.js'
import { MESSAGES, findByCode, normalizeCode, windowOrCapacity } from './service.js'

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

/** No look-alikes: 0/O, 1/I/L are left out, so a code read off a card is typed right. */
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
 * already stored are drawn again. A code another writer stores between the check and the insert is
 * skipped by the insert (no error: on PostgreSQL one would end the transaction, which is the admin
 * request's, and elsewhere a retry would leave the batch's earlier rows behind) and drawn again too.
 */
export async function insertRandomCodes(
  db: Db,
  count: number,
  prefix: string | undefined,
  settings: CodeSettings,
  now: number,
  draw: (prefix?: string) => string = randomCode,
): Promise<string[]> {
  return inTransaction(db, async (trx) => {
    const stored = new Set<string>()
    for (let round = 0; stored.size < count; round++) {
      if (round === MAX_DRAW_ROUNDS)
        throw new AppError(409, 'CONFLICT', 'Could not draw enough unused codes; use a longer or different prefix')
      const fresh = new Set<string>()
      while (stored.size + fresh.size < count) {
        const code = draw(prefix)
        if (!stored.has(code)) fresh.add(code)
      }
      for (const taken of await takenCodes(trx, [...fresh])) fresh.delete(taken)
      if (fresh.size > 0) for (const code of await insertCodes(trx, [...fresh], settings, now)) stored.add(code)
    }
    return [...stored]
  })
}

/** Inserts the codes, skipping any whose code is stored already; answers those it wrote. */
async function insertCodes(trx: Transaction<Database>, codes: string[], settings: CodeSettings, now: number) {
  const rows = codes.map((code) => rowOf(code, settings, now))
  let written = 0
  for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
    const insert = trx.insertInto('gift_codes').values(rows.slice(start, start + INSERT_CHUNK))
    written += affected(await insertOrIgnore(trx, insert).executeTakeFirst())
  }
  if (written === rows.length) return codes
  // Rare (a concurrent writer took a code just now): the rows written are those with this call's ids.
  const ours: string[] = []
  for (let start = 0; start < rows.length; start += LOOKUP_CHUNK) {
    const ids = rows.slice(start, start + LOOKUP_CHUNK).map((row) => row.id)
    const found = await trx.selectFrom('gift_codes').select('code').where('id', 'in', ids).execute()
    ours.push(...found.map((row) => row.code))
  }
  return ours
}

/** Stores one code, the operator's own (409 when it exists) or a random one, once its settings are checked. */
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

/** Stores `count` random codes (after an optional prefix) with one set of settings; answers them for handing out. */
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

/** One code for the console, looked up as a player would type it (trimmed, upper-cased); 404 when unknown. */
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
