// The operator's gift codes: create one, generate a batch, list with redemption counts,
// look one up with who redeemed it, revoke.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
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
import { routesOf } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'
import { EX, page } from '../../platform/openapi/examples.js'
import * as examples from './docs.js'

const giftCodesAdmin: FastifyPluginAsyncTypebox = async (app) => {
  const route = routesOf(manifest)
  app.get(
    '/gift-codes',
    {
      schema: route.admin({
        summary: 'Gift codes with their redemption counts, newest first',
        querystring: AdminGiftCodeListQuerySchema,
        response: { 200: AdminGiftCodeListSchema },
        docs: {
          description:
            'Gift codes with their redemption counts and current `status`, newest first, optionally those starting with ' +
            '`prefix`; a page of at most `limit` (1–100, default 50), `cursor` for the next.',
          parameters: { prefix: 'WINTER', limit: 50 },
          response: page([examples.code]),
        },
      }),
    },
    async (request) => listGiftCodes(request.reads, request.query, app.clock.now()),
  )

  app.post(
    '/gift-codes',
    {
      schema: route.admin({
        summary: 'Create one gift code (a random one when no code is given)',
        body: CreateGiftCodeBodySchema,
        response: { 201: AdminGiftCodeSchema },
        errors: [409],
        docs: {
          description:
            `Creates one code: \`code\` 4–32 of A–Z, 0–9, \`-\` (stored upper-case; absent: a random one). ${examples.CREATE} 409 ` +
            '`CONFLICT` when the code exists. 201 with the stored code.',
          request: {
            code: 'WINTER-2026',
            giftData: '{"coins":500}',
            grants: ['gold-frame'],
            maxRedemptions: 1000,
            expiresAt: '2027-01-31T23:59:59Z',
          },
          response: { ...examples.code, redemptionCount: 0 },
        },
      }),
    },
    // Returned, not sent: an admin write's reply leaves only after its transaction (and audit entry) commits.
    async (request, reply) => {
      const created = await createGiftCode(request.db, request.body, app.clock.now())
      reply.code(201)
      return created
    },
  )

  app.post(
    '/gift-codes/generate',
    {
      schema: route.admin({
        summary: 'Generate up to 10,000 random codes with the same gift, in one transaction',
        body: GenerateGiftCodesBodySchema,
        response: { 201: GeneratedGiftCodesSchema },
        errors: [409],
        docs: {
          description:
            `Generates \`count\` (1–10,000) random codes with the same gift, in one transaction; \`prefix\` (≤ 16 of A–Z, 0–9, \`-\`) ` +
            `goes before the random part, joined with \`-\`. ${examples.CREATE} 409 \`CONFLICT\` when not enough unused codes could be ` +
            'drawn (use a longer or different prefix). 201 with the codes.',
          request: { count: 2, prefix: 'PROMO', giftData: '{"coins":100}', maxRedemptions: 1 },
          response: {
            count: 2,
            codes: ['PROMO-7KQ2M9XA', 'PROMO-R4T8W1ZC'],
            giftData: '{"coins":100}',
            grants: [],
            maxRedemptions: 1,
            startsAt: null,
            expiresAt: null,
            createdAt: EX.now,
          },
        },
      }),
    },
    async (request, reply) => {
      const generated = await generateGiftCodes(request.db, request.body, app.clock.now())
      reply.code(201)
      return generated
    },
  )

  app.get(
    '/gift-codes/:code',
    {
      schema: route.admin({
        summary: 'One gift code (case-insensitive)',
        params: GiftCodeParamsSchema,
        response: { 200: AdminGiftCodeSchema },
        errors: [404],
        docs: {
          description: 'One gift code (case-insensitive). 404 `NOT_FOUND`.',
          parameters: { code: 'winter-2026' },
          response: examples.code,
        },
      }),
    },
    async (request) => getGiftCode(request.db, request.params.code, app.clock.now()),
  )

  app.get(
    '/gift-codes/:code/redemptions',
    {
      schema: route.admin({
        summary: 'Who redeemed a code and what it unlocked for them, oldest first',
        params: GiftCodeParamsSchema,
        querystring: RedemptionListQuerySchema,
        response: { 200: RedemptionListSchema },
        errors: [404],
        docs: {
          description:
            'Who redeemed a code and what it unlocked for them, oldest first; paged by `limit` and `cursor`. 404 `NOT_FOUND`.',
          parameters: { code: 'WINTER-2026', limit: 50 },
          response: page([{ userId: EX.userId, grantedUnlocks: ['gold-frame'], redeemedAt: EX.now }]),
        },
      }),
    },
    async (request) => listRedemptions(request.reads, request.params.code, request.query),
  )

  app.post(
    '/gift-codes/:code/revoke',
    {
      schema: route.admin({
        summary: 'Revoke a code for good (idempotent)',
        params: GiftCodeParamsSchema,
        response: { 200: AdminGiftCodeSchema },
        errors: [404],
        docs: {
          description: 'Revokes a code for good (idempotent): later redemptions fail with `REVOKED`. 404 `NOT_FOUND`.',
          parameters: { code: 'WINTER-2026' },
          response: { ...examples.code, revoked: true, revokedAt: EX.now, status: 'REVOKED' },
        },
      }),
    },
    async (request) => revokeGiftCode(request.db, request.params.code, app.clock.now()),
  )
}

export default giftCodesAdmin
