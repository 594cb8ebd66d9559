import type { NamedSchemas } from '../../platform/openapi/index.js'
import { EX } from '../../platform/openapi/examples.js'
import {
  AdminGiftCodeListSchema,
  AdminGiftCodeSchema,
  GiftCodeRequestSchema,
  RedeemFailureSchema,
  RedeemSuccessSchema,
  RedemptionListSchema,
} from './schemas.js'

export const SCOPED =
  'User-scoped: in compat mode `userId` alone is accepted and a bearer sent with it must be valid (401 ' +
  "`SESSION_REQUIRED`) and this user's (403 `SESSION_FORBIDDEN`); strict mode requires the bearer. 403 `USER_BANNED`; " +
  '404 `USER_NOT_FOUND`. Codes are case-insensitive; one that is not even well-formed is simply `NOT_FOUND` (players type them by hand).'
export const REASONS = '`NOT_FOUND`, `REVOKED`, `ALREADY_REDEEMED`, `NOT_STARTED`, `EXPIRED`, `EXHAUSTED`'
export const code = {
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
export const CREATE =
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
