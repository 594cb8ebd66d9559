// The operator's side of player profiles: the cosmetics catalog, and granting or taking
// back a player's unlocks.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { AdminListQuerySchema, errors } from '../../platform/schemas/common.js'
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

const tags = ['Admin', 'Player Profile']
const security = [{ adminKey: [] }]

const playerProfileAdmin: FastifyPluginAsyncTypebox<{ limits: ProfileLimits }> = async (app, { limits }) => {
  const { maxUnlocks } = limits

  app.get(
    '/cosmetics',
    {
      schema: {
        tags,
        security,
        summary: 'The cosmetics catalog (oldest first)',
        querystring: AdminListQuerySchema,
        response: { 200: AdminCosmeticListSchema, ...errors(400, 401, 429) },
      },
    },
    async (request) => listCosmetics(app.db, request.query),
  )

  app.put(
    '/cosmetics/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Create or update a catalog entry',
        params: CosmeticParamsSchema,
        body: CosmeticBodySchema,
        response: { 200: AdminCosmeticSchema, ...errors(400, 401, 429) },
      },
    },
    async (request) => putCosmetic(app.db, request.params.id, request.body, app.clock.now()),
  )

  app.delete(
    '/cosmetics/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Delete a catalog entry, its unlocks and its place on every profile',
        params: CosmeticParamsSchema,
        response: { 200: CosmeticDeletedSchema, ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => {
      await deleteCosmetic(app.db, app.events, request.params.id, app.clock.now())
      return { id: request.params.id, deleted: true as const }
    },
  )

  app.get(
    '/users/:userId/unlocks',
    {
      schema: {
        tags,
        security,
        summary: "A player's unlocks",
        params: Type.Object({ userId: UuidSchema }),
        response: { 200: AdminUnlocksSchema, ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => adminUnlocks(app.db, request.params.userId, maxUnlocks),
  )

  app.post(
    '/users/:userId/unlocks',
    {
      schema: {
        tags,
        security,
        summary: 'Grant cosmetics to a player (already owned ones are kept, not granted twice)',
        params: Type.Object({ userId: UuidSchema }),
        body: UnlocksBodySchema,
        response: { 200: AdminUnlocksSchema, ...errors(400, 401, 404, 409, 429) },
      },
    },
    async (request) => {
      const { userId } = request.params
      const granted = await grantUnlocks(app.db, userId, request.body.ids, maxUnlocks, app.clock.now())
      return adminUnlocks(app.db, userId, maxUnlocks, granted)
    },
  )

  app.delete(
    '/users/:userId/unlocks/:id',
    {
      schema: {
        tags,
        security,
        summary: "Take back a player's unlock",
        params: UnlockParamsSchema,
        response: { 200: AdminUnlocksSchema, ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const { userId, id } = request.params
      await revokeUnlock(app.db, app.events, userId, id, app.clock.now())
      return adminUnlocks(app.db, userId, maxUnlocks)
    },
  )
}

export default playerProfileAdmin
