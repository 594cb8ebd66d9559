import { Type, type Static } from '@sinclair/typebox'
import {
  DisplayNameSchema,
  NAME_PATTERN,
  Nullable,
  OptionalString,
  TimestampSchema,
  UuidSchema,
  StringEnum,
} from '../../platform/schemas/common.js'

/** The cosmetic id rule; bodies carry ids as plain strings so a bad one is INVALID_COSMETIC_ID. */
export const COSMETIC_ID_PATTERN = '^[a-z0-9][a-z0-9._-]{0,31}$'
export const CosmeticIdSchema = Type.String({ pattern: COSMETIC_ID_PATTERN, description: 'Cosmetic id' })
export const CosmeticTypeSchema = StringEnum(['avatar', 'frame', 'badge'] as const)

/** What other players see of a player: also each leaderboard entry's `profile`. */
export const PublicProfileSchema = Type.Object({
  avatarId: Type.Union([Type.String(), Type.Null()]),
  frameId: Type.Union([Type.String(), Type.Null()]),
  badges: Type.Array(Type.String()),
})
export type PublicProfile = Static<typeof PublicProfileSchema>

export const CustomDataSchema = Type.Object(
  {},
  { additionalProperties: true, description: 'JSON object, ≤ 16 KiB serialized' },
)

export const ProfileDocumentSchema = Type.Object({
  userId: Type.String(),
  username: Type.String(),
  displayName: Type.String(),
  profile: PublicProfileSchema,
  unlocks: Type.Array(Type.String()),
  cosmetics: Type.Array(
    Type.Object({ id: Type.String(), type: CosmeticTypeSchema, locked: Type.Boolean(), available: Type.Boolean() }),
  ),
  limits: Type.Object({ maxBadges: Type.Integer(), maxUnlocks: Type.Integer() }),
  customData: Type.Union([CustomDataSchema, Type.Null()]),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
})
export type ProfileDocument = Static<typeof ProfileDocumentSchema>

export const ProfileQuerySchema = Type.Object({ userId: UuidSchema })

// Ids are free strings here (format checked by the service, in the order of checks of contract §5.1).
const SlotId = OptionalString({ maxLength: 256 })
export const ProfileUpdateBodySchema = Type.Object({
  userId: UuidSchema,
  avatarId: SlotId,
  frameId: SlotId,
  badges: Nullable(Type.Array(Type.String({ maxLength: 256 }), { maxItems: 100 })),
  displayName: OptionalString({ maxLength: 200, pattern: NAME_PATTERN }),
  customData: Nullable(CustomDataSchema),
})
export type ProfileUpdateBody = Static<typeof ProfileUpdateBodySchema>

// ---- operator ---------------------------------------------------------------------------------

export const AdminCosmeticSchema = Type.Object({
  id: Type.String(),
  type: CosmeticTypeSchema,
  name: Type.String(),
  locked: Type.Boolean(),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
})
export type AdminCosmetic = Static<typeof AdminCosmeticSchema>

export const AdminCosmeticListSchema = Type.Object({
  items: Type.Array(AdminCosmeticSchema),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
})

export const CosmeticParamsSchema = Type.Object({ id: CosmeticIdSchema })

export const CosmeticBodySchema = Type.Object({
  type: CosmeticTypeSchema,
  name: DisplayNameSchema({ minLength: 1, maxLength: 100 }),
  locked: Type.Boolean({ default: false }),
})

export const CosmeticDeletedSchema = Type.Object({ id: Type.String(), deleted: Type.Literal(true) })

export const UnlockParamsSchema = Type.Object({ userId: UuidSchema, id: CosmeticIdSchema })
export const UnlocksBodySchema = Type.Object({
  ids: Type.Array(CosmeticIdSchema, { minItems: 1, maxItems: 100 }),
})

/** A player's unlocks as the operator sees them; `granted` lists what a grant added. */
export const AdminUnlocksSchema = Type.Object({
  userId: Type.String(),
  unlocks: Type.Array(Type.String()),
  maxUnlocks: Type.Integer(),
  granted: Type.Optional(Type.Array(Type.String())),
})
export type AdminUnlocks = Static<typeof AdminUnlocksSchema>

// ---- its part of a player's data export (features/users/export.ts) -------------------------------

/** The player's profile and unlocks. */
export const ProfileExportSchema = {
  profile: Type.Union([
    Type.Object({
      avatarId: Type.Union([Type.String(), Type.Null()]),
      frameId: Type.Union([Type.String(), Type.Null()]),
      badges: Type.Array(Type.String()),
      customData: Type.Unknown({ description: 'JSON as stored' }),
      createdAt: TimestampSchema,
      updatedAt: TimestampSchema,
    }),
    Type.Null(),
  ]),
  unlocks: Type.Array(Type.Object({ cosmeticId: Type.String(), unlockedAt: TimestampSchema })),
}
