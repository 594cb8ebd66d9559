// The app routes of gift codes: what the feature guarantees is in index.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { GiftCodeRequestSchema, RedeemResponseSchema, ValidateResponseSchema } from './schemas.js'
import { redeemGiftCode, validateGiftCode } from './service.js'
import { routesOf } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'
import { EX } from '../../platform/openapi/examples.js'
import * as examples from './docs.js'

const security: Array<Record<string, string[]>> = [{ apiKey: [] }, { apiKey: [], session: [] }]

const giftCodes: FastifyPluginAsyncTypebox = async (app) => {
  const route = routesOf(manifest)
  app.post(
    '/gift-codes/validate',
    {
      schema: route.app({
        security,
        summary: 'Whether the player could redeem a code now, and why not',
        body: GiftCodeRequestSchema,
        response: { 200: ValidateResponseSchema },
        errors: [403, 404],
        docs: {
          description: `Whether the player could redeem the code now, and why not: \`reason\` one of ${examples.REASONS}. Redeems nothing. ${examples.SCOPED}`,
          request: { code: 'winter-2026', userId: EX.userId },
          response: { valid: true },
        },
      }),
      preHandler: app.auth.userScoped,
    },
    async (request) => validateGiftCode(request.db, request.identity!.userId, request.body.code, app.clock.now()),
  )

  app.post(
    '/gift-codes/redeem',
    {
      schema: route.app({
        security,
        summary: 'Redeem a code: its giftData, and the cosmetics it unlocks',
        body: GiftCodeRequestSchema,
        response: { 200: RedeemResponseSchema },
        errors: [403, 404, 409],
        docs: {
          description:
            'Redeems a code: 200 `{ success: true, message, giftData, grantedUnlocks }` (every grant of the code the player ' +
            'owns after the redemption, those owned before included, so the SDKs refresh the profile; none is granted twice), or 200 `{ success: false, message, reason, grantedUnlocks: [] }` ' +
            `with \`reason\` one of ${examples.REASONS} (compat: a failure has **no** \`giftData\` key; a Godot client assigns it to a ` +
            'typed String). A user redeems a code at most once; redemptions never exceed `maxRedemptions`, under any concurrency. ' +
            `409 \`UNLOCK_LIMIT_REACHED\` when the grants would pass the player's unlock limit, and nothing is redeemed. ${examples.SCOPED}`,
          request: { code: 'WINTER-2026', userId: EX.userId },
          response: {
            success: true,
            message: 'Gift code redeemed successfully',
            giftData: '{"coins":500}',
            grantedUnlocks: ['gold-frame'],
          },
        },
      }),
      preHandler: app.auth.userScoped,
    },
    async (request) =>
      redeemGiftCode(
        request.db,
        request.identity!.userId,
        request.body.code,
        app.config.PROFILE_MAX_UNLOCKS,
        app.clock.now(),
        app.events,
      ),
  )
}

export default giftCodes
