import type { NamedSchemas, OperationDocs } from '../../platform/openapi/index.js'
import { EX, page } from '../../platform/openapi/examples.js'
import {
  AdminGiftCodeListSchema,
  AdminGiftCodeSchema,
  GiftCodeRequestSchema,
  RedeemFailureSchema,
  RedeemSuccessSchema,
  RedemptionListSchema,
} from './schemas.js'
import { APP_PREFIX, ADMIN_PREFIX } from '../../platform/core/paths.js'

const APP = `${APP_PREFIX}/gift-codes`
const ADMIN = `${ADMIN_PREFIX}/gift-codes`
const SCOPED =
  'User-scoped: in compat mode `userId` alone is accepted and a bearer sent with it must be valid (401 ' +
  "`SESSION_REQUIRED`) and this user's (403 `SESSION_FORBIDDEN`); strict mode requires the bearer. 403 `USER_BANNED`; " +
  '404 `USER_NOT_FOUND`. Codes are case-insensitive; one that is not even well-formed is simply `NOT_FOUND` (players type them by hand).'
const REASONS = '`NOT_FOUND`, `REVOKED`, `ALREADY_REDEEMED`, `NOT_STARTED`, `EXPIRED`, `EXHAUSTED`'
const code = {
  id: EX.id,
  code: 'WINTER-2026',
  giftData: '{"coins":500}',
  grants: ['gold-frame'],
  maxRedemptions: 1000,
  redemptionCount: 42,
  startsAt: null,
  expiresAt: '2027-01-31T23:59:59.000Z',
  revoked: false,
  revokedAt: null,
  status: 'ACTIVE',
  createdAt: EX.earlier,
  updatedAt: EX.now,
}
const CREATE =
  '`giftData` (≤ 10,000 characters, usually JSON text) is handed to the game on redemption; `grants` (≤ 10 catalog ' +
  'cosmetic ids; 400 `COSMETIC_NOT_FOUND` for one not in the catalog) are unlocked; `maxRedemptions` 1–2,000,000,000; ' +
  '`startsAt`/`expiresAt` optional (ISO 8601).'

export const components: NamedSchemas = {
  GiftCodeRequest: GiftCodeRequestSchema,
  GiftRedeemed: RedeemSuccessSchema,
  GiftNotRedeemed: RedeemFailureSchema,
  GiftCode: AdminGiftCodeSchema,
  GiftCodePage: AdminGiftCodeListSchema,
  GiftCodeRedemptionPage: RedemptionListSchema,
}

export const docs: OperationDocs = {
  [`POST ${APP}/validate`]: {
    description: `Whether the player could redeem the code now, and why not: \`reason\` one of ${REASONS}. Redeems nothing. ${SCOPED}`,
    request: { code: 'winter-2026', userId: EX.userId },
    response: { valid: true },
  },
  [`POST ${APP}/redeem`]: {
    description:
      'Redeems a code: 200 `{ success: true, message, giftData, grantedUnlocks }` (every grant of the code the player ' +
      'owns after the redemption, those owned before included, so the SDKs refresh the profile; none is granted twice), or 200 `{ success: false, message, reason, grantedUnlocks: [] }` ' +
      `with \`reason\` one of ${REASONS} (compat: a failure has **no** \`giftData\` key; a Godot client assigns it to a ` +
      'typed String). A user redeems a code at most once; redemptions never exceed `maxRedemptions`, under any concurrency. ' +
      `409 \`UNLOCK_LIMIT_REACHED\` when the grants would pass the player's unlock limit, and nothing is redeemed. ${SCOPED}`,
    request: { code: 'WINTER-2026', userId: EX.userId },
    response: {
      success: true,
      message: 'Gift code redeemed successfully',
      giftData: '{"coins":500}',
      grantedUnlocks: ['gold-frame'],
    },
  },
  [`GET ${ADMIN}`]: {
    description:
      'Gift codes with their redemption counts and current `status`, newest first, optionally those starting with ' +
      '`prefix`; a page of at most `limit` (1–100, default 50), `cursor` for the next.',
    parameters: { prefix: 'WINTER', limit: 50 },
    response: page([code]),
  },
  [`POST ${ADMIN}`]: {
    description:
      `Creates one code: \`code\` 4–32 of A–Z, 0–9, \`-\` (stored upper-case; absent: a random one). ${CREATE} 409 ` +
      '`CONFLICT` when the code exists. 201 with the stored code.',
    request: {
      code: 'WINTER-2026',
      giftData: '{"coins":500}',
      grants: ['gold-frame'],
      maxRedemptions: 1000,
      expiresAt: '2027-01-31T23:59:59Z',
    },
    response: { ...code, redemptionCount: 0 },
  },
  [`POST ${ADMIN}/generate`]: {
    description:
      `Generates \`count\` (1–10,000) random codes with the same gift, in one transaction; \`prefix\` (≤ 16 of A–Z, 0–9, \`-\`) ` +
      `goes before the random part, joined with \`-\`. ${CREATE} 409 \`CONFLICT\` when not enough unused codes could be ` +
      'drawn (use a longer or different prefix). 201 with the codes.',
    request: { count: 2, prefix: 'PROMO', giftData: '{"coins":100}', maxRedemptions: 1 },
    response: {
      count: 2,
      codes: ['PROMO-7KQ2M9XA', 'PROMO-R4T8W1ZC'],
      giftData: '{"coins":100}',
      grants: [],
      maxRedemptions: 1,
      startsAt: null,
      expiresAt: null,
      createdAt: EX.now,
    },
  },
  [`GET ${ADMIN}/{code}`]: {
    description: 'One gift code (case-insensitive). 404 `NOT_FOUND`.',
    parameters: { code: 'winter-2026' },
    response: code,
  },
  [`GET ${ADMIN}/{code}/redemptions`]: {
    description:
      'Who redeemed a code and what it unlocked for them, oldest first; paged by `limit` and `cursor`. 404 `NOT_FOUND`.',
    parameters: { code: 'WINTER-2026', limit: 50 },
    response: page([{ userId: EX.userId, grantedUnlocks: ['gold-frame'], redeemedAt: EX.now }]),
  },
  [`POST ${ADMIN}/{code}/revoke`]: {
    description: 'Revokes a code for good (idempotent): later redemptions fail with `REVOKED`. 404 `NOT_FOUND`.',
    parameters: { code: 'WINTER-2026' },
    response: { ...code, revoked: true, revokedAt: EX.now, status: 'REVOKED' },
  },
}
