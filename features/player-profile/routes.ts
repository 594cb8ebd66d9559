// The app routes of player profiles: what the feature guarantees is in index.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import {
  ProfileDocumentSchema,
  ProfileQuerySchema,
  ProfileUpdateBodySchema,
  type ProfileUpdateBody,
} from './schemas.js'
import { checkProfileBody, getProfileDocument, updateProfile, type ProfileLimits } from './service.js'
import { routesOf } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'
import { EX } from '../../platform/openapi/examples.js'
import * as examples from './docs.js'

const security = [{ apiKey: [], session: [] }]

const playerProfile: FastifyPluginAsyncTypebox<{ limits: ProfileLimits }> = async (app, { limits }) => {
  const route = routesOf(manifest)
  app.get(
    '/player-profile',
    {
      schema: route.app({
        security,
        summary: "The player's profile, unlocks and the cosmetics catalog",
        querystring: ProfileQuerySchema,
        response: { 200: ProfileDocumentSchema },
        errors: [403, 404],
        docs: {
          description:
            `${examples.SESSION} The profile document: the visible profile (one avatar, one frame, up to \`maxBadges\` badges; empty ` +
            'slots are `null` and `[]`), the unlocks, the whole catalog sorted by id with `available` (not locked, or unlocked ' +
            'by this player), the limits and `customData`. 404 `PLAYER_NOT_FOUND`.',
          parameters: { userId: EX.userId },
          response: examples.profile,
        },
      }),
      preHandler: app.auth.sessionRequired,
    },
    async (request) => getProfileDocument(request.db, request.identity!.userId, limits),
  )

  app.put(
    '/player-profile',
    {
      schema: route.app({
        security,
        summary: 'Replace the visible profile (slots together); name and customData when sent',
        body: ProfileUpdateBodySchema,
        response: { 200: ProfileDocumentSchema },
        errors: [403, 404],
        docs: {
          description:
            `${examples.SESSION} The three cosmetic slots are replaced together, as the SDKs expect: a missing, \`null\` or \`""\` slot ` +
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
          response: examples.profile,
        },
      }),
      config: { validate: (request) => void checkProfileBody(request.body as ProfileUpdateBody, limits) },
      preHandler: app.auth.sessionRequired,
    },
    async (request) =>
      updateProfile(request.db, app.events, request.identity!.userId, request.body, limits, app.clock.now()),
  )
}

export default playerProfile
