// Gift codes: players validate and redeem codes the operator made. A redemption is
// settled in the database, so a code is never redeemed more than maxRedemptions times nor twice by
// one player, across any number of instances; a refusal is a 200 with a reason and no giftData key.
import { adminRoutes, defineFeature, exportPart, type FeatureManifest } from '../../platform/core/features.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { ADMIN_PREFIX, APP_PREFIX } from '../../platform/core/paths.js'
import { exportForUser } from './service.js'
import routes from './routes.js'
import admin from './admin.js'
import { components } from './docs.js'
import { GiftCodeExhaustedEventSchema, GiftCodeExportSchema } from './schemas.js'
import { migrations } from './migrations/index.js'

export const manifest: FeatureManifest = {
  name: 'gift-codes',
  tag: 'Gift Codes',
  adminRights: GAME_RIGHTS,
  tables: ['gift_codes', 'gift_code_redemptions'],
  events: [
    {
      type: 'gift_code.exhausted',
      title: 'Gift code used up',
      payload: GiftCodeExhaustedEventSchema,
      after: 'run.flagged',
    },
  ],
  playerExport: exportPart({
    schema: GiftCodeExportSchema,
    read: async (db, userId) => ({ giftCodeRedemptions: await exportForUser(db, userId) }),
  }),
  migrations,
}

export default defineFeature(
  manifest,
  async (app) => {
    app.openapi.describe({}, components)
    await app.register(routes, { prefix: APP_PREFIX })
    await app.register(adminRoutes(manifest, admin), { prefix: ADMIN_PREFIX })
  },
  ['db', 'clock', 'config', 'sessions', 'events'],
)
