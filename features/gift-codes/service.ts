import { sql, type Transaction } from 'kysely'
import type { Database, Db } from '../../db/types.js'
import type { GiftCode } from './tables.js'
import { affected, isForeignKeyViolation, isUniqueViolation } from '../../db/dialect.js'
import { inTransaction } from '../../db/transaction.js'
import { guarded } from '../../db/savepoint.js'
import { COPIED, EXISTS, refused, type ImportOutcome, importRow } from '../../db/import-outcome.js'
import { notFound } from '../../platform/core/errors.js'
import { toIso } from '../../platform/core/clock.js'
import type { EventSender } from '../../platform/core/events.js'
import { cosmeticsInCatalog, grantUnlocks } from '../player-profile/service.js'
import type { GiftCodeReason, RedeemResponse, ValidateResponse } from './schemas.js'

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

/** The text of each refusal reason, one place for the redeem and validate answers. */
export const MESSAGES: Record<GiftCodeReason, string> = {
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
export function windowOrCapacity(row: CodeState, now: number): 'NOT_STARTED' | 'EXPIRED' | 'EXHAUSTED' | undefined {
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

/** A code's row by its exact text: callers normalize what the player typed first. */
export function findByCode(db: Db, code: string) {
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

/** Whether a player could redeem a code now, without redeeming it. */
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
  events?: EventSender,
): Promise<RedeemResponse> {
  const code = normalizeCode(typed)
  if (code === undefined) return failure('NOT_FOUND')
  try {
    const { giftData, owned } = await inTransaction(db, async (trx) => {
      // The claim comes first, by the code's unique key: an unknown code claims nothing (its reason is
      // read after the rollback, as every refusal's is).
      const claimed = await trx
        .updateTable('gift_codes')
        .set({ redemption_count: sql<number>`redemption_count + 1` })
        .where('code', '=', code)
        .whereRef('redemption_count', '<', 'max_redemptions')
        .where('revoked', '=', 0)
        .where((eb) => eb.or([eb('starts_at', 'is', null), eb('starts_at', '<=', now)]))
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
        .executeTakeFirst()
      // Which condition failed is read after the rollback, outside this transaction's snapshot.
      if (affected(claimed) === 0) throw new Refused(undefined)
      // This transaction now holds the code's row lock, so the row read here carries the count as this
      // claim left it: of concurrent redemptions, only the one that took the last redemption reads the
      // count at the maximum.
      const row = (await findByCode(trx, code))!
      if (events?.raising && Number(row.redemption_count) >= Number(row.max_redemptions)) {
        await events.raise(trx, 'gift_code.exhausted', {
          code: row.code,
          maxRedemptions: Number(row.max_redemptions),
          userId,
        })
      }
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
      const { owned, granted } = await grantLiveCosmetics(
        trx,
        userId,
        JSON.parse(row.grants) as string[],
        maxUnlocks,
        now,
      )
      if (granted.length > 0) {
        await trx
          .updateTable('gift_code_redemptions')
          .set({ granted_unlocks: JSON.stringify(granted) })
          .where('gift_code_id', '=', row.id)
          .where('user_id', '=', userId)
          .execute()
      }
      return { giftData: row.gift_data, owned }
    })
    return { success: true, message: REDEEMED_MESSAGE, giftData, grantedUnlocks: owned }
  } catch (error) {
    if (!(error instanceof Refused)) throw error
    // A refused conditional update cannot be undone later (the count only grows, revocation is
    // final, the code is never deleted), so the fresh read finds its reason; the fallback only
    // covers a clock that moved backwards in between.
    return failure(error.reason ?? (await reasonFor(db, code, userId, now)) ?? 'EXHAUSTED')
  }
}

/**
 * The code's grants that are still in the catalog, all owned by the player once this returns
 * (`owned`: the answer lists them, as the hosted server does, so the SDKs refresh a stale profile even
 * when the player had them all), and those this redemption added (`granted`: what the operator sees).
 */
async function grantLiveCosmetics(
  trx: Transaction<Database>,
  userId: string,
  grants: string[],
  maxUnlocks: number,
  now: number,
): Promise<{ owned: string[]; granted: string[] }> {
  const live = grants.length === 0 ? [] : await cosmeticsInCatalog(trx, grants)
  if (live.length === 0) return { owned: [], granted: [] }
  // Checked: the redemption row just inserted refers to the user, and `live` was read from the catalog.
  return { owned: live, granted: await grantUnlocks(trx, userId, live, maxUnlocks, now, true) }
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
    // A dry run imports inside a transaction, which the refusal must leave usable (`guarded`).
    await guarded(db, () =>
      db
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
        .execute(),
    )
    return COPIED
  } catch (error) {
    if (!isUniqueViolation(error)) throw error
    const existing = await findByCode(db, code)
    return existing?.id === id ? EXISTS : refused(`code ${code} already exists here`)
  }
}

/**
 * A redemption brought over with its code: the (code, user) primary key makes a second import a
 * no-op. A dry run imports inside a transaction, which a refused row must leave usable (`importRow` guards it).
 */
export async function importRedemption(
  db: Db,
  input: { giftCodeId: string; userId: string; redeemedAt: number },
): Promise<ImportOutcome> {
  return importRow(
    db,
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
export * from './stats.js'
