import { Type, type Static } from '@sinclair/typebox'
import { GAME_ID_PATTERN } from '../../db/games.js'

/** The parts a copy between games may take, in the order they are applied. */
export const COPY_PARTS = [
  'remoteConfig',
  'localization',
  'news',
  'cosmetics',
  'leaderboards',
  'validatedActions',
  'emailTemplates',
] as const
/** One of COPY_PARTS. */
export type CopyPart = (typeof COPY_PARTS)[number]

/** The target game of a copy, in the path. */
export const CopyParamsSchema = Type.Object({ gameId: Type.String({ pattern: GAME_ID_PATTERN }) })

/** What a copy is asked: the source game, the parts, whether only to show the difference. */
export const CopyBodySchema = Type.Object({
  source: Type.String({ pattern: GAME_ID_PATTERN, description: 'The game copied from' }),
  parts: Type.Array(Type.Union(COPY_PARTS.map((part) => Type.Literal(part))), {
    minItems: 1,
    maxItems: COPY_PARTS.length,
    uniqueItems: true,
  }),
  dryRun: Type.Optional(Type.Boolean({ default: false, description: 'true: answer the difference, change nothing' })),
})
/** A copy's body. */
export type CopyBody = Static<typeof CopyBodySchema>

const KeyValue = Type.Object({ key: Type.String(), value: Type.Unknown() })
/** One part's difference: what the source adds, changes and lacks, with the values. */
export const PartDiffSchema = Type.Object({
  added: Type.Array(KeyValue),
  changed: Type.Array(Type.Object({ key: Type.String(), from: Type.Unknown(), to: Type.Unknown() })),
  removed: Type.Array(KeyValue),
})
/** A part's difference. */
export type PartDiff = Static<typeof PartDiffSchema>

/** A copy's answer: the two games, whether it was a dry run, each part's difference. */
export const CopyResultSchema = Type.Object({
  source: Type.String(),
  target: Type.String(),
  dryRun: Type.Boolean(),
  parts: Type.Partial(Type.Object(Object.fromEntries(COPY_PARTS.map((part) => [part, PartDiffSchema])))),
})
/** A copy's answer. */
export type CopyResult = Static<typeof CopyResultSchema>
