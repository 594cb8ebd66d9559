import { Type, type Static } from '@sinclair/typebox'
import { Nullable, OptionalString, StringEnum, TimestampSchema, UuidSchema } from '../../platform/schemas/common.js'
import { CosmeticIdSchema } from '../player-profile/schemas.js'

export const GIFT_DATA_MAX = 10_000
export const GRANTS_MAX = 10
export const MAX_REDEMPTIONS_MAX = 2_000_000_000
export const GENERATE_MAX = 10_000
export const PREFIX_MAX = 16

/** Why a code cannot be redeemed, in the order the checks run (features/gift-codes/service.ts). */
export const GIFT_CODE_REASONS = [
  'NOT_FOUND',
  'REVOKED',
  'ALREADY_REDEEMED',
  'NOT_STARTED',
  'EXPIRED',
  'EXHAUSTED',
] as const
export type GiftCodeReason = (typeof GIFT_CODE_REASONS)[number]
const ReasonSchema = StringEnum(GIFT_CODE_REASONS)

// Players type codes by hand: any string is accepted here; trimmed, upper-cased, and a malformed one is NOT_FOUND.
const TypedCodeSchema = Type.String({
  maxLength: 256,
  description: 'The code as the player typed it (case-insensitive)',
})

export const GiftCodeRequestSchema = Type.Object({ code: TypedCodeSchema, userId: UuidSchema })
export type GiftCodeRequest = Static<typeof GiftCodeRequestSchema>

export const ValidateResponseSchema = Type.Object({
  valid: Type.Boolean(),
  reason: Type.Optional(ReasonSchema),
})
export type ValidateResponse = Static<typeof ValidateResponseSchema>

/**
 * Two shapes, so the serializer can never write `giftData` into a failure: a Godot client assigns it
 * to a typed String, where `null` is a script error.
 */
export const RedeemSuccessSchema = Type.Object({
  success: Type.Literal(true),
  message: Type.String(),
  giftData: Type.String(),
  grantedUnlocks: Type.Array(Type.String(), { description: 'Cosmetic ids this redemption newly unlocked' }),
})
export const RedeemFailureSchema = Type.Object({
  success: Type.Literal(false),
  message: Type.String(),
  reason: ReasonSchema,
  grantedUnlocks: Type.Array(Type.String(), { maxItems: 0 }),
})
export const RedeemResponseSchema = Type.Union([RedeemSuccessSchema, RedeemFailureSchema])
export type RedeemResponse = Static<typeof RedeemResponseSchema>

// ---- admin ----------------------------------------------------------------------------------

const GiftDataSchema = Type.String({
  maxLength: GIFT_DATA_MAX,
  description: 'Handed to the game on redemption, usually JSON text',
})
const GrantsSchema = Nullable(
  Type.Array(CosmeticIdSchema, {
    maxItems: GRANTS_MAX,
    uniqueItems: true,
    description: 'Catalog cosmetics unlocked on redemption',
  }),
)
const MaxRedemptionsSchema = Type.Integer({ minimum: 1, maximum: MAX_REDEMPTIONS_MAX })
const WhenSchema = Nullable(Type.String({ format: 'date-time', description: 'ISO 8601' }))

export const CreateGiftCodeBodySchema = Type.Object({
  code: OptionalString({
    pattern: '^[A-Za-z0-9-]{4,32}$',
    description: '4–32 of A–Z, 0–9, "-", stored upper-case; absent: a random code is generated',
  }),
  giftData: GiftDataSchema,
  grants: GrantsSchema,
  maxRedemptions: MaxRedemptionsSchema,
  startsAt: WhenSchema,
  expiresAt: WhenSchema,
})
export type CreateGiftCodeBody = Static<typeof CreateGiftCodeBodySchema>

export const GenerateGiftCodesBodySchema = Type.Object({
  count: Type.Integer({ minimum: 1, maximum: GENERATE_MAX }),
  prefix: OptionalString({
    pattern: `^[A-Za-z0-9-]{1,${PREFIX_MAX}}$`,
    description: 'Put before the random part, joined with "-" (upper-cased)',
  }),
  giftData: GiftDataSchema,
  grants: GrantsSchema,
  maxRedemptions: MaxRedemptionsSchema,
  startsAt: WhenSchema,
  expiresAt: WhenSchema,
})
export type GenerateGiftCodesBody = Static<typeof GenerateGiftCodesBodySchema>

export const GIFT_CODE_STATUSES = ['ACTIVE', 'NOT_STARTED', 'EXPIRED', 'EXHAUSTED', 'REVOKED'] as const

export const AdminGiftCodeSchema = Type.Object({
  id: Type.String(),
  code: Type.String(),
  giftData: Type.String(),
  grants: Type.Array(Type.String()),
  maxRedemptions: Type.Integer(),
  redemptionCount: Type.Integer(),
  startsAt: Type.Union([TimestampSchema, Type.Null()]),
  expiresAt: Type.Union([TimestampSchema, Type.Null()]),
  revoked: Type.Boolean(),
  revokedAt: Type.Union([TimestampSchema, Type.Null()]),
  status: StringEnum(GIFT_CODE_STATUSES, { description: 'What a redemption would meet now (before per-user checks)' }),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
})
export type AdminGiftCode = Static<typeof AdminGiftCodeSchema>

export const AdminGiftCodeListSchema = Type.Object({
  items: Type.Array(AdminGiftCodeSchema),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
})

export const AdminGiftCodeListQuerySchema = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
  prefix: OptionalString({
    pattern: '^[A-Za-z0-9-]{1,32}$',
    description: 'Only codes starting with this (case-insensitive)',
  }),
})

export const GeneratedGiftCodesSchema = Type.Object({
  count: Type.Integer(),
  codes: Type.Array(Type.String()),
  giftData: Type.String(),
  grants: Type.Array(Type.String()),
  maxRedemptions: Type.Integer(),
  startsAt: Type.Union([TimestampSchema, Type.Null()]),
  expiresAt: Type.Union([TimestampSchema, Type.Null()]),
  createdAt: TimestampSchema,
})
export type GeneratedGiftCodes = Static<typeof GeneratedGiftCodesSchema>

export const GiftCodeParamsSchema = Type.Object({ code: Type.String({ maxLength: 256 }) })

export const RedemptionSchema = Type.Object({
  userId: Type.String(),
  grantedUnlocks: Type.Array(Type.String()),
  redeemedAt: TimestampSchema,
})
export type Redemption = Static<typeof RedemptionSchema>
export const RedemptionListSchema = Type.Object({
  items: Type.Array(RedemptionSchema),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
})
export const RedemptionListQuerySchema = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
})

// ---- what gift codes announce --------------------------------------------------------------------

/** `gift_code.exhausted`: a redemption took a code's last one. */
export const GiftCodeExhaustedEventSchema = Type.Object({
  code: Type.String(),
  maxRedemptions: Type.Integer(),
  userId: Type.String(),
})

// Loads the hub's module, which the maps below extend, in every program (the console's too).
import type {} from '../../platform/core/events.js'

declare module '../../platform/core/events.js' {
  interface RaisedEvents {
    'gift_code.exhausted': Static<typeof GiftCodeExhaustedEventSchema>
  }
}

// ---- its part of a player's data export (features/users/export.ts) -------------------------------

/** The player's redemptions. */
export const GiftCodeExportSchema = {
  giftCodeRedemptions: Type.Array(
    Type.Object({
      code: Type.String(),
      giftData: Type.String(),
      grantedUnlocks: Type.Array(Type.String()),
      redeemedAt: TimestampSchema,
    }),
  ),
}
