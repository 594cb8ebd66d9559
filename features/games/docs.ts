import type { NamedSchemas } from '../../platform/openapi/index.js'
import { EX } from '../../platform/openapi/examples.js'
import {
  GameCreatedSchema,
  GameKeyCreatedSchema,
  GameKeyListSchema,
  GameKeySchema,
  GameListSchema,
  GameSchema,
  GameSettingsSchema,
} from './schemas.js'

export const OWNER_ONLY = 'Owners only (and the X-Admin-Key); other roles get 403 FORBIDDEN.'
export const NOT_FOUND = 'An unknown game (or one the operator holds no role in): 404 GAME_NOT_FOUND.'
export const RELOADED =
  'The instance that answers uses the change from its next request on; every other instance within a second.'

export const game = { id: 'space-miner', name: 'Space Miner', createdAt: EX.earlier }
export const key = {
  id: '0b7e2d4c-6a8f-4c1e-9d3b-5f7a9c1e3b5d',
  label: 'iOS 2.4',
  prefix: 'opk_Xq9v',
  createdAt: EX.now,
  lastUsedAt: null,
  revokedAt: null,
}
export const secret = 'opk_Xq9vT3mB7kL2pR8sW4yZ6cF1hJ5nD0gA'
export const settings = {
  authMode: 'strict',
  rateLimitPerSecond: 50,
  appleAudiences: ['com.example.spaceminer'],
  googleAudiences: [],
  emailFrom: 'Space Miner <noreply@example.com>',
  corsOrigins: ['*'],
  overridden: ['authMode', 'appleAudiences', 'emailFrom'],
}

export const components: NamedSchemas = {
  Game: GameSchema,
  GameList: GameListSchema,
  GameCreated: GameCreatedSchema,
  GameKey: GameKeySchema,
  GameKeyCreated: GameKeyCreatedSchema,
  GameKeyList: GameKeyListSchema,
  GameSettings: GameSettingsSchema,
}
