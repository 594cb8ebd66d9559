// The games' admin answers as these pages read them (the games feature's schemas.ts defines them on
// the server).
export type { GameItem, GameStats } from '../../../console/src/games'

/** An app key: its secret `key` is answered once, by the create. */
export interface GameKey {
  id: string
  label: string
  /** The secret's first characters, to tell keys apart. */
  prefix: string
  createdAt: string
  lastUsedAt: string | null
  revokedAt: string | null
  key?: string
}

/** A new game: its first app key, with the secret, comes with it. */
export interface CreatedGame {
  id: string
  name: string
  createdAt: string
  key: GameKey & { key: string }
}

/** A game's settings in effect; `overridden` names those the game sets over the environment's. */
export interface GameSettings {
  authMode: 'compat' | 'strict'
  rateLimitPerSecond: number
  appleAudiences: string[]
  googleAudiences: string[]
  emailFrom: string
  corsOrigins: string[]
  overridden: string[]
}

/** A list answer of the games' routes (a bare array is read as one too). */
export const itemsOf = <T>(answer: { items: T[] } | T[]): T[] => (Array.isArray(answer) ? answer : answer.items)

/**
 * The parts a promotion may copy, in the server's order (the games feature's COPY_PARTS; a test holds
 * the two lists equal), with their names on the page.
 */
export const COPY_PART_LABELS = {
  remoteConfig: 'Remote config',
  localization: 'Localization',
  news: 'News',
  cosmetics: 'Cosmetics',
  leaderboards: 'Leaderboard definitions',
  validatedActions: 'Validation rules and values',
  emailTemplates: 'E-mail templates',
} as const
/** One of the parts a promotion may copy. */
export type CopyPart = keyof typeof COPY_PART_LABELS

/** A part's difference, target against source: what the source adds, changes and lacks. */
export interface PartDiff {
  added: Array<{ key: string; value: unknown }>
  changed: Array<{ key: string; from: unknown; to: unknown }>
  removed: Array<{ key: string; value: unknown }>
}

/** A promotion's answer (`POST /games/{target}/copy-from`). */
export interface CopyResult {
  source: string
  target: string
  dryRun: boolean
  parts: Partial<Record<CopyPart, PartDiff>>
}
