import { Type, type Static } from '@sinclair/typebox'
import { TimestampSchema, StringEnum } from '../../platform/schemas/common.js'

export const CONFIG_KEY_PATTERN = '^[A-Za-z0-9._-]{1,128}$'
/** Characters; a value is a string (JSON text, a number, a flag: the game parses it). */
export const CONFIG_VALUE_MAX = 65_536
export const IMPORT_MAX_KEYS = 5000

export const ConfigKeySchema = Type.String({
  pattern: CONFIG_KEY_PATTERN,
  description: 'Letters, digits, `.`, `_`, `-`; 1–128 characters, case-sensitive; `all` and `filter` are reserved',
})
export const ConfigValueSchema = Type.String({
  maxLength: CONFIG_VALUE_MAX,
  description: 'A string of at most 65,536 characters',
})

export const ConfigKeyParamsSchema = Type.Object({ configKey: ConfigKeySchema })

export const ConfigResponseSchema = Type.Object({
  configKey: Type.String(),
  configValue: Type.Union([Type.String(), Type.Null()]),
  found: Type.Boolean(),
})

export const ConfigMapSchema = Type.Record(Type.String(), Type.String())

export const AllConfigsResponseSchema = Type.Object({ configs: ConfigMapSchema, total: Type.Integer() })

export const FilterQuerySchema = Type.Object({
  pattern: Type.String({
    minLength: 1,
    maxLength: 102,
    description:
      'Key text with up to 10 `*` wildcards (no `**`): `ui.*` PREFIX, `*.color` SUFFIX, `*menu*` CONTAINS, else GLOB; no wildcard = PREFIX',
  }),
})

export const MatchTypeSchema = StringEnum(['PREFIX', 'SUFFIX', 'CONTAINS', 'GLOB'] as const)
export type MatchType = Static<typeof MatchTypeSchema>

export const FilterResponseSchema = Type.Object({
  configs: ConfigMapSchema,
  total: Type.Integer(),
  pattern: Type.String(),
  matchType: MatchTypeSchema,
})

export const NotModifiedSchema = Type.Null({
  description: 'Not modified: the ETag in If-None-Match is current (no body)',
})

// ---- admin ----------------------------------------------------------------------------------

export const AdminConfigSchema = Type.Object({
  configKey: Type.String(),
  configValue: Type.String(),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
})
export type AdminConfig = Static<typeof AdminConfigSchema>

export const AdminConfigListSchema = Type.Object({
  items: Type.Array(AdminConfigSchema),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
})

export const AdminConfigListQuerySchema = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
})

export const PutConfigBodySchema = Type.Object({ value: ConfigValueSchema })

/** Keys are checked with `propertyNames`, so a bad key is a 400 rather than silently dropped. */
export const ImportConfigsBodySchema = Type.Object({
  configs: Type.Record(Type.String(), ConfigValueSchema, {
    propertyNames: { pattern: CONFIG_KEY_PATTERN },
    maxProperties: IMPORT_MAX_KEYS,
    description: `key → value, at most ${IMPORT_MAX_KEYS} keys; applied in one transaction (all or nothing); existing keys not named are kept`,
  }),
})

export const ImportConfigsResponseSchema = Type.Object({ imported: Type.Integer(), configs: ConfigMapSchema })

export const ConfigDeletedSchema = Type.Object({ configKey: Type.String(), deleted: Type.Literal(true) })
