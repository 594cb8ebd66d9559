// The operator's gift codes: create one, generate a batch, list with redemption counts,
// look one up with who redeemed it, revoke.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../platform/schemas/common.js'
import {
  AdminGiftCodeListQuerySchema,
  AdminGiftCodeListSchema,
  AdminGiftCodeSchema,
  CreateGiftCodeBodySchema,
  GeneratedGiftCodesSchema,
  GenerateGiftCodesBodySchema,
  GiftCodeParamsSchema,
  RedemptionListQuerySchema,
  RedemptionListSchema,
} from './schemas.js'
import {
  createGiftCode,
  generateGiftCodes,
  getGiftCode,
  listGiftCodes,
  listRedemptions,
  revokeGiftCode,
} from './admin-service.js'

const tags = ['Admin', 'Gift Codes']
const security = [{ adminKey: [] }]

const giftCodesAdmin: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/gift-codes',
    {
      schema: {
        tags,
        security,
        summary: 'Gift codes with their redemption counts, newest first',
        querystring: AdminGiftCodeListQuerySchema,
        response: { 200: AdminGiftCodeListSchema, ...errors(400, 401, 429) },
      },
    },
    async (request) => listGiftCodes(app.db, request.query, app.clock.now()),
  )

  app.post(
    '/gift-codes',
    {
      schema: {
        tags,
        security,
        summary: 'Create one gift code (a random one when no code is given)',
        body: CreateGiftCodeBodySchema,
        response: { 201: AdminGiftCodeSchema, ...errors(400, 401, 409, 429) },
      },
    },
    // Returned, not sent: an admin write's reply leaves only after its transaction (and audit entry) commits.
    async (request, reply) => {
      const created = await createGiftCode(app.db, request.body, app.clock.now())
      reply.code(201)
      return created
    },
  )

  app.post(
    '/gift-codes/generate',
    {
      schema: {
        tags,
        security,
        summary: 'Generate up to 10,000 random codes with the same gift, in one transaction',
        body: GenerateGiftCodesBodySchema,
        response: { 201: GeneratedGiftCodesSchema, ...errors(400, 401, 409, 429) },
      },
    },
    async (request, reply) => {
      const generated = await generateGiftCodes(app.db, request.body, app.clock.now())
      reply.code(201)
      return generated
    },
  )

  app.get(
    '/gift-codes/:code',
    {
      schema: {
        tags,
        security,
        summary: 'One gift code (case-insensitive)',
        params: GiftCodeParamsSchema,
        response: { 200: AdminGiftCodeSchema, ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => getGiftCode(app.db, request.params.code, app.clock.now()),
  )

  app.get(
    '/gift-codes/:code/redemptions',
    {
      schema: {
        tags,
        security,
        summary: 'Who redeemed a code and what it unlocked for them, oldest first',
        params: GiftCodeParamsSchema,
        querystring: RedemptionListQuerySchema,
        response: { 200: RedemptionListSchema, ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => listRedemptions(app.db, request.params.code, request.query),
  )

  app.post(
    '/gift-codes/:code/revoke',
    {
      schema: {
        tags,
        security,
        summary: 'Revoke a code for good (idempotent)',
        params: GiftCodeParamsSchema,
        response: { 200: AdminGiftCodeSchema, ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => revokeGiftCode(app.db, request.params.code, app.clock.now()),
  )
}

export default giftCodesAdmin
