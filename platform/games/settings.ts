import { Type, type Static } from '@sinclair/typebox'
import type { Config } from '../../config.js'

/**
 * A game's own settings (contract §14): what a game leaves out takes the environment's value, so
 * `default`, untouched, behaves exactly as the settings of `.env` say.
 */
export const GameSettingsPatch = Type.Object(
  {
    authMode: Type.Optional(Type.Union([Type.Literal('compat'), Type.Literal('strict')])),
    rateLimitPerSecond: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    appleAudiences: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 20 })),
    googleAudiences: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 20 })),
    emailFrom: Type.Optional(Type.String({ minLength: 3, maxLength: 320 })),
    corsOrigins: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 50 })),
  },
  { additionalProperties: false },
)
export type GameSettingsPatch = Static<typeof GameSettingsPatch>

/** A change of a game's own settings: a field given replaces its value, `null` gives it back to the environment. */
export type GameSettingsChange = { [K in keyof GameSettingsPatch]?: GameSettingsPatch[K] | null }

/** A game's own settings after `change`: fields set to null are left out (the environment's again). */
export function changedSettings(own: GameSettingsPatch, change: GameSettingsChange): GameSettingsPatch {
  const next: Record<string, unknown> = { ...own }
  for (const [name, value] of Object.entries(change)) {
    if (value === null) delete next[name]
    else if (value !== undefined) next[name] = value
  }
  return next as GameSettingsPatch
}

/** A game's settings in force: its own where it set them, the environment's elsewhere. */
export interface GameSettings {
  authMode: 'compat' | 'strict'
  rateLimitPerSecond: number
  /** Audiences a Sign in with Apple token may carry (contract §3.1); empty: Apple sign-in off. */
  appleAudiences: string[]
  /** Audiences (client ids) a Google ID token may carry; empty: Google sign-in off. */
  googleAudiences: string[]
  emailFrom: string
  /** `['*']` for any origin. */
  corsOrigins: string[]
}

const list = (value: string) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)

/** The environment's settings, as a game's defaults. */
export function environmentSettings(config: Config): GameSettings {
  return {
    authMode: config.AUTH_MODE,
    rateLimitPerSecond: config.RATE_LIMIT_PER_SECOND,
    appleAudiences: [config.APPLE_BUNDLE_ID, config.APPLE_SERVICE_ID].map((id) => id.trim()).filter(Boolean),
    googleAudiences: list(config.GOOGLE_CLIENT_ID),
    emailFrom: config.EMAIL_FROM,
    corsOrigins: list(config.CORS_ORIGINS),
  }
}

/** The settings in force for a game that set `own`. */
export function effectiveSettings(defaults: GameSettings, own: GameSettingsPatch): GameSettings {
  return { ...defaults, ...own }
}
