// The app routes of gift codes: what the feature guarantees is in index.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../platform/schemas/common.js'
import { GiftCodeRequestSchema, RedeemResponseSchema, ValidateResponseSchema } from './schemas.js'
import { redeemGiftCode, validateGiftCode } from './service.js'

const tags = ['Gift Codes']
const security: Array<Record<string, string[]>> = [{ apiKey: [] }, { apiKey: [], session: [] }]

const giftCodes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/gift-codes/validate',
    {
      schema: {
        tags,
        security,
        summary: 'Whether the player could redeem a code now, and why not',
        body: GiftCodeRequestSchema,
        response: { 200: ValidateResponseSchema, ...errors(400, 401, 403, 404, 429) },
      },
      preHandler: app.auth.userScoped,
    },
    async (request) => validateGiftCode(app.db, request.identity!.userId, request.body.code, app.clock.now()),
  )

  app.post(
    '/gift-codes/redeem',
    {
      schema: {
        tags,
        security,
        summary: 'Redeem a code: its giftData, and the cosmetics it unlocks',
        body: GiftCodeRequestSchema,
        response: { 200: RedeemResponseSchema, ...errors(400, 401, 403, 404, 409, 429) },
      },
      preHandler: app.auth.userScoped,
    },
    async (request) =>
      redeemGiftCode(
        app.db,
        request.identity!.userId,
        request.body.code,
        app.config.PROFILE_MAX_UNLOCKS,
        app.clock.now(),
        app.events,
      ),
  )
}

export default giftCodes
