// The operator's side of player profiles: the cosmetics catalog, and granting or taking
// back a player's unlocks.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { AdminListQuerySchema } from '../../platform/schemas/common.js'
import {
  AdminCosmeticListSchema,
  AdminCosmeticSchema,
  AdminUnlocksSchema,
  CosmeticBodySchema,
  CosmeticDeletedSchema,
  CosmeticParamsSchema,
  UnlockParamsSchema,
  UnlocksBodySchema,
} from './schemas.js'
import { UuidSchema } from '../../platform/schemas/common.js'
import {
  adminUnlocks,
  deleteCosmetic,
  grantUnlocks,
  listCosmetics,
  putCosmetic,
  revokeUnlock,
  type ProfileLimits,
} from './service.js'
import { routesOf } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'
import { EX, page } from '../../platform/openapi/examples.js'
import * as examples from './docs.js'

const playerProfileAdmin: FastifyPluginAsyncTypebox<{ limits: ProfileLimits }> = async (app, { limits }) => {
  const route = routesOf(manifest)
  const { maxUnlocks } = limits

  app.get(
    '/cosmetics',
    {
      schema: route.admin({
        summary: 'The cosmetics catalog (oldest first)',
        querystring: AdminListQuerySchema,
        response: { 200: AdminCosmeticListSchema },
        docs: {
          description:
            'The cosmetics catalog, oldest first, a page of at most `limit` (1–100, default 50); pass `nextCursor` as `cursor` for the next page.',
          parameters: { limit: 50 },
          response: page([examples.cosmetic]),
        },
      }),
    },
    async (request) => listCosmetics(request.db, request.query),
  )

  app.put(
    '/cosmetics/:id',
    {
      schema: route.admin({
        summary: 'Create or update a catalog entry',
        params: CosmeticParamsSchema,
        body: CosmeticBodySchema,
        response: { 200: AdminCosmeticSchema },
        docs: {
          description:
            'Creates or updates a catalog entry. The id: 1–32 characters of `[a-z0-9._-]`, starting with a letter or digit. ' +
            '`type` `avatar` | `frame` | `badge`; `name` 1–100 characters; `locked` (default false): a locked cosmetic is usable ' +
            'only by players who unlocked it (gift-code grants, or the unlock routes). Answers the stored entry.',
          parameters: { id: 'gold-frame' },
          request: { type: 'frame', name: 'Gold frame', locked: true },
          response: examples.cosmetic,
        },
      }),
    },
    async (request) => putCosmetic(request.db, request.params.id, request.body, app.clock.now()),
  )

  app.delete(
    '/cosmetics/:id',
    {
      schema: route.admin({
        summary: 'Delete a catalog entry, its unlocks and its place on every profile',
        params: CosmeticParamsSchema,
        response: { 200: CosmeticDeletedSchema },
        errors: [404],
        docs: {
          description:
            'Deletes a catalog entry, every unlock of it and its place on every profile (slots holding it are cleared). 404 `NOT_FOUND`.',
          parameters: { id: 'gold-frame' },
          response: { id: 'gold-frame', deleted: true },
        },
      }),
    },
    async (request) => {
      await deleteCosmetic(request.db, app.events, request.params.id, app.clock.now())
      return { id: request.params.id, deleted: true as const }
    },
  )

  app.get(
    '/users/:userId/unlocks',
    {
      schema: route.admin({
        summary: "A player's unlocks",
        params: Type.Object({ userId: UuidSchema }),
        response: { 200: AdminUnlocksSchema },
        errors: [404],
        docs: {
          description: "A player's unlocks and the per-player limit. 404 `USER_NOT_FOUND`.",
          parameters: { userId: EX.userId },
          response: { userId: EX.userId, unlocks: ['gold-frame'], maxUnlocks: 25 },
        },
      }),
    },
    async (request) => adminUnlocks(request.db, request.params.userId, maxUnlocks),
  )

  app.post(
    '/users/:userId/unlocks',
    {
      schema: route.admin({
        summary: 'Grant cosmetics to a player (already owned ones are kept, not granted twice)',
        params: Type.Object({ userId: UuidSchema }),
        body: UnlocksBodySchema,
        response: { 200: AdminUnlocksSchema },
        errors: [404, 409],
        docs: {
          description:
            'Grants catalog cosmetics (1–100 ids). Ones the player already has are kept, not granted twice; `granted` lists the ' +
            'new ones. 400 `INVALID_COSMETIC_ID` or `COSMETIC_NOT_FOUND` for an id that is malformed or not in the catalog; 409 ' +
            '`UNLOCK_LIMIT_REACHED` (with `maxUnlocks`) when the grant would pass `PROFILE_MAX_UNLOCKS`, and nothing is granted. ' +
            '404 `USER_NOT_FOUND`.',
          parameters: { userId: EX.userId },
          request: { ids: ['gold-frame', 'fox'] },
          response: { userId: EX.userId, unlocks: ['fox', 'gold-frame'], maxUnlocks: 25, granted: ['fox'] },
        },
      }),
    },
    async (request) => {
      const { userId } = request.params
      const granted = await grantUnlocks(request.db, userId, request.body.ids, maxUnlocks, app.clock.now())
      return adminUnlocks(request.db, userId, maxUnlocks, granted)
    },
  )

  app.delete(
    '/users/:userId/unlocks/:id',
    {
      schema: route.admin({
        summary: "Take back a player's unlock",
        params: UnlockParamsSchema,
        response: { 200: AdminUnlocksSchema },
        errors: [404],
        docs: {
          description:
            "Takes back a player's unlock; a locked cosmetic it held in a slot is cleared from the profile. 404 `USER_NOT_FOUND`, " +
            'or `NOT_FOUND` when the player has no such unlock.',
          parameters: { userId: EX.userId, id: 'gold-frame' },
          response: { userId: EX.userId, unlocks: ['fox'], maxUnlocks: 25 },
        },
      }),
    },
    async (request) => {
      const { userId, id } = request.params
      await revokeUnlock(request.db, app.events, userId, id, app.clock.now())
      return adminUnlocks(request.db, userId, maxUnlocks)
    },
  )
}

export default playerProfileAdmin
