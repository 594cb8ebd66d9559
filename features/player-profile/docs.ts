import type { NamedSchemas, OperationDocs } from '../../platform/openapi/index.js'
import { EX, page } from '../../platform/openapi/examples.js'
import {
  AdminCosmeticListSchema,
  AdminCosmeticSchema,
  AdminUnlocksSchema,
  ProfileDocumentSchema,
  PublicProfileSchema,
} from './schemas.js'
import { APP_PREFIX, ADMIN_PREFIX } from '../../platform/core/paths.js'

const APP = `${APP_PREFIX}/player-profile`
const ADMIN = ADMIN_PREFIX

const profile = {
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
const cosmetic = {
  id: 'gold-frame',
  type: 'frame',
  name: 'Gold frame',
  locked: true,
  createdAt: EX.earlier,
  updatedAt: EX.now,
}
const SESSION =
  'Session required: a bearer token of this user (401 `SESSION_REQUIRED` without a valid one, 403 `SESSION_FORBIDDEN` ' +
  "for another user's session, 403 `USER_BANNED` for a banned user)."

export const components: NamedSchemas = {
  PublicProfile: PublicProfileSchema,
  PlayerProfile: ProfileDocumentSchema,
  Cosmetic: AdminCosmeticSchema,
  CosmeticPage: AdminCosmeticListSchema,
  PlayerUnlocks: AdminUnlocksSchema,
}

export const docs: OperationDocs = {
  [`GET ${APP}`]: {
    description:
      `${SESSION} The profile document: the visible profile (one avatar, one frame, up to \`maxBadges\` badges; empty ` +
      'slots are `null` and `[]`), the unlocks, the whole catalog sorted by id with `available` (not locked, or unlocked ' +
      'by this player), the limits and `customData`. 404 `PLAYER_NOT_FOUND`.',
    parameters: { userId: EX.userId },
    response: profile,
  },
  [`PUT ${APP}`]: {
    description:
      `${SESSION} The three cosmetic slots are replaced together, as the SDKs expect: a missing, \`null\` or \`""\` slot ` +
      'clears it, a missing badge list clears the badges. `displayName` (1–50 characters after trimming; renames the user ' +
      'everywhere) and `customData` (a JSON object ≤ 16 KiB serialized, replaces the stored one) change only when sent. ' +
      'Checks, in order: badge count (≤ `maxBadges`) and duplicates → 400 `INVALID_BADGES`; every id well-formed → 400 ' +
      "`INVALID_COSMETIC_ID`; in the catalog → 400 `COSMETIC_NOT_FOUND`; of the slot's type → 400 `COSMETIC_TYPE_MISMATCH`; " +
      'usable → 403 `COSMETIC_LOCKED`. Nothing is stored when a check fails. 404 `PLAYER_NOT_FOUND`. Answers the profile document.',
    request: {
      userId: EX.userId,
      avatarId: 'fox',
      frameId: 'gold-frame',
      badges: ['beta-tester'],
      customData: { title: 'Speedrunner' },
    },
    response: profile,
  },
  [`GET ${ADMIN}/cosmetics`]: {
    description:
      'The cosmetics catalog, oldest first, a page of at most `limit` (1–100, default 50); pass `nextCursor` as `cursor` for the next page.',
    parameters: { limit: 50 },
    response: page([cosmetic]),
  },
  [`PUT ${ADMIN}/cosmetics/{id}`]: {
    description:
      'Creates or updates a catalog entry. The id: 1–32 characters of `[a-z0-9._-]`, starting with a letter or digit. ' +
      '`type` `avatar` | `frame` | `badge`; `name` 1–100 characters; `locked` (default false): a locked cosmetic is usable ' +
      'only by players who unlocked it (gift-code grants, or the unlock routes). Answers the stored entry.',
    parameters: { id: 'gold-frame' },
    request: { type: 'frame', name: 'Gold frame', locked: true },
    response: cosmetic,
  },
  [`DELETE ${ADMIN}/cosmetics/{id}`]: {
    description:
      'Deletes a catalog entry, every unlock of it and its place on every profile (slots holding it are cleared). 404 `NOT_FOUND`.',
    parameters: { id: 'gold-frame' },
    response: { id: 'gold-frame', deleted: true },
  },
  [`GET ${ADMIN}/users/{userId}/unlocks`]: {
    description: "A player's unlocks and the per-player limit. 404 `USER_NOT_FOUND`.",
    parameters: { userId: EX.userId },
    response: { userId: EX.userId, unlocks: ['gold-frame'], maxUnlocks: 25 },
  },
  [`POST ${ADMIN}/users/{userId}/unlocks`]: {
    description:
      'Grants catalog cosmetics (1–100 ids). Ones the player already has are kept, not granted twice; `granted` lists the ' +
      'new ones. 400 `INVALID_COSMETIC_ID` or `COSMETIC_NOT_FOUND` for an id that is malformed or not in the catalog; 409 ' +
      '`UNLOCK_LIMIT_REACHED` (with `maxUnlocks`) when the grant would pass `PROFILE_MAX_UNLOCKS`, and nothing is granted. ' +
      '404 `USER_NOT_FOUND`.',
    parameters: { userId: EX.userId },
    request: { ids: ['gold-frame', 'fox'] },
    response: { userId: EX.userId, unlocks: ['fox', 'gold-frame'], maxUnlocks: 25, granted: ['fox'] },
  },
  [`DELETE ${ADMIN}/users/{userId}/unlocks/{id}`]: {
    description:
      "Takes back a player's unlock; a locked cosmetic it held in a slot is cleared from the profile. 404 `USER_NOT_FOUND`, " +
      'or `NOT_FOUND` when the player has no such unlock.',
    parameters: { userId: EX.userId, id: 'gold-frame' },
    response: { userId: EX.userId, unlocks: ['fox'], maxUnlocks: 25 },
  },
}
