import type { NamedSchemas } from '../../platform/openapi/index.js'
import { EX } from '../../platform/openapi/examples.js'
import {
  AdminCosmeticListSchema,
  AdminCosmeticSchema,
  AdminUnlocksSchema,
  ProfileDocumentSchema,
  PublicProfileSchema,
} from './schemas.js'

export const profile = {
  userId: EX.userId,
  username: 'Ada',
  displayName: 'Ada',
  profile: { avatarId: 'fox', frameId: 'gold-frame', badges: ['beta-tester'] },
  unlocks: ['gold-frame'],
  cosmetics: [
    { id: 'beta-tester', type: 'badge', locked: false, available: true },
    { id: 'fox', type: 'avatar', locked: false, available: true },
    { id: 'gold-frame', type: 'frame', locked: true, available: true },
  ],
  limits: { maxBadges: 3, maxUnlocks: 25 },
  customData: { title: 'Speedrunner' },
  createdAt: EX.earlier,
  updatedAt: EX.now,
}
export const cosmetic = {
  id: 'gold-frame',
  type: 'frame',
  name: 'Gold frame',
  locked: true,
  createdAt: EX.earlier,
  updatedAt: EX.now,
}
export const SESSION =
  'Session required: a bearer token of this user (401 `SESSION_REQUIRED` without a valid one, 403 `SESSION_FORBIDDEN` ' +
  "for another user's session, 403 `USER_BANNED` for a banned user)."

export const components: NamedSchemas = {
  PublicProfile: PublicProfileSchema,
  PlayerProfile: ProfileDocumentSchema,
  Cosmetic: AdminCosmeticSchema,
  CosmeticPage: AdminCosmeticListSchema,
  PlayerUnlocks: AdminUnlocksSchema,
}
