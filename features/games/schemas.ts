import { Type, type Static } from '@sinclair/typebox'
import { GAME_ID_PATTERN } from '../../db/game-schema.js'
import { GameSettingsPatch } from '../../platform/games/settings.js'
import { Nullable, StringEnum, TimestampSchema } from '../../platform/schemas/common.js'

export const GameIdSchema = Type.String({
  pattern: GAME_ID_PATTERN,
  description: 'Lower-case letters, digits and dashes, starting with a letter or digit; at most 32 characters',
})
const GameNameSchema = Type.String({ minLength: 1, maxLength: 100 })

export const GameSchema = Type.Object({
  id: Type.String({ description: 'The game id: the admin path /api/v1/admin/games/{gameId}/… addresses it' }),
  name: Type.String(),
  createdAt: TimestampSchema,
})
export type GameBody = Static<typeof GameSchema>

export const GameListItemSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  createdAt: TimestampSchema,
  role: StringEnum(['owner', 'moderator', 'viewer'] as const, { description: "The caller's role in the game" }),
  players: Type.Optional(Type.Integer({ description: 'With stats=true: its players' })),
  activeToday: Type.Optional(Type.Integer({ description: 'With stats=true: its players active today (UTC)' })),
  crashFreeRate: Type.Optional(
    Type.Union([Type.Number(), Type.Null()], {
      description: 'With stats=true: the share of its crash sessions without a crash (null: no session yet)',
    }),
  ),
})
export const GameListSchema = Type.Object({
  items: Type.Array(GameListItemSchema),
  nextCursor: Type.Null({ description: 'Always null: every game is on the one page' }),
})
export const GameListQuerySchema = Type.Object({
  stats: Type.Optional(
    Type.Boolean({
      description: "true: each game's players, active players today and crash-free rate (a query per game)",
    }),
  ),
})

export const GameParamsSchema = Type.Object({ gameId: GameIdSchema })
export const GameKeyParamsSchema = Type.Object({
  gameId: GameIdSchema,
  keyId: Type.String({ minLength: 1, maxLength: 36, description: 'The key id (GET …/keys lists them)' }),
})

export const GameCreateBodySchema = Type.Object({ id: GameIdSchema, name: GameNameSchema })
export const GameUpdateBodySchema = Type.Object({ name: GameNameSchema })
export const GameDeleteBodySchema = Type.Object({
  confirm: Type.Optional(Type.String({ maxLength: 64, description: 'The game id again: the erasure is final' })),
})

export const GameKeySchema = Type.Object({
  id: Type.String(),
  label: Type.String(),
  prefix: Type.String({ description: "The secret's first 8 characters, to recognise it by" }),
  createdAt: TimestampSchema,
  lastUsedAt: Type.Union([TimestampSchema, Type.Null()], {
    description: 'Written back about once a minute; null: never used',
  }),
  revokedAt: Type.Union([TimestampSchema, Type.Null()]),
})
export const GameKeyCreatedSchema = Type.Composite([
  GameKeySchema,
  Type.Object({ key: Type.String({ description: 'The secret, answered this once: only its hash is kept' }) }),
])
export const GameKeyListSchema = Type.Object({ items: Type.Array(GameKeySchema), nextCursor: Type.Null() })
export const GameKeyCreateBodySchema = Type.Object({ label: Type.String({ minLength: 1, maxLength: 100 }) })

export const GameCreatedSchema = Type.Composite([GameSchema, Type.Object({ key: GameKeyCreatedSchema })])

const fields = Type.Required(GameSettingsPatch).properties

export const GameSettingsSchema = Type.Object({
  authMode: StringEnum(['compat', 'strict'] as const),
  rateLimitPerSecond: Type.Integer(),
  appleAudiences: Type.Array(Type.String()),
  googleAudiences: Type.Array(Type.String()),
  emailFrom: Type.String(),
  corsOrigins: Type.Array(Type.String()),
  overridden: Type.Array(Type.String(), {
    description: 'The fields the game set itself; the others are the environment’s values',
  }),
})
export type GameSettingsBody = Static<typeof GameSettingsSchema>

export const GameSettingsChangeSchema = Type.Object(
  {
    authMode: Nullable(fields.authMode),
    rateLimitPerSecond: Nullable(fields.rateLimitPerSecond),
    appleAudiences: Nullable(fields.appleAudiences),
    googleAudiences: Nullable(fields.googleAudiences),
    emailFrom: Nullable(fields.emailFrom),
    corsOrigins: Nullable(fields.corsOrigins),
  },
  { description: 'Any of the settings; null gives a field back to the environment’s value' },
)
